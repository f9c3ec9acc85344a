import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFilePath, loadSettings, parseServerUrl, readConfigFile, SYSTEM_CONFIG_FILE } from './config.js';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { tempDir } from './test-support/temp-dir.js';

function usageMessage(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).exitCode).toBe(ExitCode.Usage);
    return (error as ClientError).message;
  }
  throw new Error('expected a usage error');
}

describe('the config file path', () => {
  it('is --config first, then $POSTERN_CLIENT_CONFIG', () => {
    const env = { POSTERN_CLIENT_CONFIG: '/srv/env.json' };
    expect(configFilePath('/srv/flag.json', env, true)).toBe('/srv/flag.json');
    expect(configFilePath(undefined, env, false)).toBe('/srv/env.json');
  });

  it('is /etc/postern-client/config.json for root and under ~/.config for others', () => {
    expect(configFilePath(undefined, {}, true)).toBe(SYSTEM_CONFIG_FILE);
    expect(configFilePath(undefined, {}, false)).toBe(path.join(os.homedir(), '.config/postern-client/config.json'));
    expect(configFilePath(undefined, { XDG_CONFIG_HOME: '/x' }, false)).toBe('/x/postern-client/config.json');
  });
});

describe('reading the config file', () => {
  it('resolves the key and session files beside the config file unless it names them', () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({ server: 'https://postern.example/', keyFile: 'secret/key', knocs: ['Backup DB'] }),
    );

    const settings = loadSettings({ config: file }, { requireServer: true, env: {} });

    expect(settings).toEqual({
      configFile: file,
      configFound: true,
      server: 'https://postern.example',
      keyFile: path.join(dir, 'secret/key'),
      knocs: ['Backup DB'],
      sessionFile: path.join(dir, 'session.json'),
    });
  });

  it('lets flags and $POSTERN_CLIENT_SERVER override the file', () => {
    const dir = tempDir();
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ server: 'https://a.example' }));

    const fromEnv = loadSettings(
      { config: file },
      { requireServer: true, env: { POSTERN_CLIENT_SERVER: 'https://b.example' } },
    );
    const fromFlags = loadSettings(
      { config: file, server: 'https://c.example', keyFile: '/k', sessionFile: '/s.json' },
      { requireServer: true, env: { POSTERN_CLIENT_SERVER: 'https://b.example' } },
    );

    expect(fromEnv.server).toBe('https://b.example');
    expect(fromFlags).toMatchObject({ server: 'https://c.example', keyFile: '/k', sessionFile: '/s.json' });
  });

  it('works without a config file when the server is given', () => {
    const env = {
      POSTERN_CLIENT_CONFIG: path.join(tempDir(), 'none.json'),
      POSTERN_CLIENT_SERVER: 'https://p.example',
    };

    expect(loadSettings({}, { requireServer: true, env })).toMatchObject({
      configFound: false,
      server: 'https://p.example',
    });
  });

  it('says how to make a config file when there is no server to talk to', () => {
    const env = { POSTERN_CLIENT_CONFIG: path.join(tempDir(), 'none.json') };

    expect(usageMessage(() => loadSettings({}, { requireServer: true, env }))).toMatch(
      /postern-client init --server URL/,
    );
  });

  it('refuses a --config that does not exist', () => {
    const file = path.join(tempDir(), 'missing.json');

    expect(usageMessage(() => loadSettings({ config: file }, { requireServer: false, env: {} }))).toContain(
      'does not exist',
    );
  });

  it.each([
    ['not JSON', '{server:', /not valid JSON/],
    ['an unknown setting (a typo)', '{"server": "https://p.example", "keyfile": "/k"}', /unknown setting keyfile/],
    ['no server', '{"keyFile": "/k"}', /server/],
    ['a knoc list that is not a list', '{"server": "https://p.example", "knocs": "Backup DB"}', /knocs/],
  ])('refuses a config file with %s', (_case, content, message) => {
    const file = path.join(tempDir(), 'config.json');
    writeFileSync(file, content);

    expect(usageMessage(() => readConfigFile(file))).toMatch(message);
  });
});

describe('the server URL', () => {
  it.each([
    ['https://postern.example', 'https://postern.example', null],
    ['https://postern.example/', 'https://postern.example', null],
    ['https://postern.example:8443/portal/', 'https://postern.example:8443/portal', null],
    ['http://localhost:8080', 'http://localhost:8080', null],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:8080', null],
    ['http://[::1]:8080', 'http://[::1]:8080', null],
    ['http://postern.lan', 'http://postern.lan', /unencrypted/],
  ])('accepts %s as %s', (raw, url, warning) => {
    const parsed = parseServerUrl(raw);

    expect(parsed.url).toBe(url);
    if (warning === null) expect(parsed.warning).toBeNull();
    else expect(parsed.warning).toMatch(warning);
  });

  it.each([
    ['postern.example', /not a URL/],
    ['ftp://postern.example', /https:\/\/ or http:\/\//],
    ['https://user:pw@postern.example', /user name or password/],
    ['https://postern.example/?x=1', /query/],
    ['https://postern.example/#top', /fragment/],
  ])('refuses %s', (raw, message) => {
    expect(usageMessage(() => parseServerUrl(raw))).toMatch(message);
  });
});
