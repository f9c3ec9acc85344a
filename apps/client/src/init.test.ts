import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from './config.js';
import { ExitCode } from './exit-codes.js';
import { runInit, type InitOptions } from './init.js';
import { permissions, tempDir } from './test-support/temp-dir.js';

const KEY = 'pst_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdoaWpr';
const noKey = () => Promise.reject(new Error('standard input must not be read'));

function options(dir: string, extra: Partial<InitOptions> = {}): InitOptions {
  return {
    configFile: path.join(dir, 'etc', 'config.json'),
    server: 'https://postern.example/',
    keyStdin: false,
    force: false,
    knocs: [],
    ...extra,
  };
}

describe('postern-client init', () => {
  it('writes the config with mode 600 in a directory it creates with mode 700', async () => {
    const dir = tempDir();
    const result = await runInit(noKey, options(dir, { knocs: ['Backup DB'] }));
    const configFile = path.join(dir, 'etc', 'config.json');

    expect(result.exitCode).toBe(ExitCode.Ok);
    expect(permissions(statSync(configFile).mode)).toBe(0o600);
    expect(permissions(statSync(path.dirname(configFile)).mode)).toBe(0o700);
    expect(readConfigFile(configFile)).toEqual({
      server: 'https://postern.example',
      keyFile: path.join(dir, 'etc', 'key'),
      knocs: ['Backup DB'],
    });
    expect(result.lines.join('\n')).toContain(`Put the API key in ${path.join(dir, 'etc', 'key')}`);
  });

  it('writes the key from standard input to a key file with mode 600', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'keys', 'postern.key');

    await runInit(() => Promise.resolve(`${KEY}\n`), options(dir, { keyStdin: true, keyFile }));

    expect(readFileSync(keyFile, 'utf8')).toBe(`${KEY}\n`);
    expect(permissions(statSync(keyFile).mode)).toBe(0o600);
    expect(readConfigFile(path.join(dir, 'etc', 'config.json'))?.keyFile).toBe(keyFile);
  });

  it('refuses to overwrite a config file without --force, before reading any key', async () => {
    const dir = tempDir();
    await runInit(noKey, options(dir));

    await expect(
      runInit(noKey, options(dir, { keyStdin: true, server: 'https://other.example' })),
    ).rejects.toMatchObject({
      exitCode: ExitCode.Usage,
      message: expect.stringMatching(/exists already \(--force replaces it\)/) as string,
    });
    expect(readConfigFile(path.join(dir, 'etc', 'config.json'))?.server).toBe('https://postern.example');
  });

  it('refuses to overwrite a key file without --force', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'key');
    writeFileSync(keyFile, 'pst_old_old_old_old_old_old', { mode: 0o600 });

    await expect(runInit(noKey, options(dir, { keyStdin: true, keyFile }))).rejects.toMatchObject({
      message: expect.stringContaining(`${keyFile} exists already`) as string,
    });
    expect(existsSync(path.join(dir, 'etc', 'config.json'))).toBe(false);
  });

  it('replaces both with --force', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'key');
    writeFileSync(keyFile, 'pst_old_old_old_old_old_old', { mode: 0o644 });
    await runInit(noKey, options(dir));

    await runInit(
      () => Promise.resolve(KEY),
      options(dir, { keyStdin: true, keyFile, force: true, server: 'https://new.example' }),
    );

    expect(readFileSync(keyFile, 'utf8')).toBe(`${KEY}\n`);
    expect(permissions(statSync(keyFile).mode)).toBe(0o600);
    expect(readConfigFile(path.join(dir, 'etc', 'config.json'))?.server).toBe('https://new.example');
  });

  it('warns about plain http to another machine, and about a key file others can read', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'key');
    writeFileSync(keyFile, KEY, { mode: 0o644 });

    const result = await runInit(noKey, options(dir, { server: 'http://postern.lan', keyFile }));

    expect(result.warnings).toEqual([
      expect.stringContaining('unencrypted'),
      expect.stringContaining(`chmod 600 ${keyFile}`),
    ]);
  });

  it('refuses a server URL that is not http or https', async () => {
    await expect(runInit(noKey, options(tempDir(), { server: 'ftp://postern.example' }))).rejects.toMatchObject({
      exitCode: ExitCode.Usage,
    });
  });
});
