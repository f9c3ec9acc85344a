import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigFixture, type ConfigFixture } from '../test-support/config-fixture.js';
import { loadOrCreateAgentKey } from './agent-key.js';

let f: ConfigFixture;
beforeEach(() => {
  f = createConfigFixture();
});
afterEach(() => {
  f.remove();
});

const ed25519Pem = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const ecPem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('the agent key file', () => {
  it('lives beside the state file unless keyFile names another, relative to the config file', () => {
    expect(f.load().config.keyFile).toBe(f.path('state/agent-key.pem'));
    expect(f.load({ env: { POSTERN_AGENT_KEY_FILE: f.path('keys/agent.pem') } }).config.keyFile).toBe(
      f.path('keys/agent.pem'),
    );
    expect(f.load({ file: { keyFile: 'etc/agent.pem' } }).config.keyFile).toBe(f.path('etc/agent.pem'));
    expect(f.load({ flags: { keyFile: 'flag.pem' } }).config.keyFile).toBe(f.path('flag.pem'));
  });

  it('is not created by loading the configuration (check-config changes nothing)', () => {
    const { config } = f.load({ createStateDirectory: true });
    expect(existsSync(config.keyFile)).toBe(false);
  });

  it('accepts an existing Ed25519 key only its owner can read', () => {
    const file = f.write('state/agent-key.pem', ed25519Pem(), 0o600);
    expect(f.load().config.keyFile).toBe(file);
  });

  it.each([
    {
      name: 'readable by others',
      write: (f: ConfigFixture) => f.write('state/agent-key.pem', ed25519Pem(), 0o644),
      problem: (file: string) => `${file} is readable by group or others (mode 644); run chmod 600 ${file}`,
    },
    {
      name: 'readable by its group',
      write: (f: ConfigFixture) => f.write('state/agent-key.pem', ed25519Pem(), 0o640),
      problem: (file: string) => `${file} is readable by group or others (mode 640); run chmod 600 ${file}`,
    },
    {
      name: 'not a key',
      write: (f: ConfigFixture) => f.write('state/agent-key.pem', 'not a key\n', 0o600),
      problem: (file: string) =>
        `${file} holds no Ed25519 private key in PEM; restore it from a backup, or remove it and have an admin rotate the agent token (the agent then enrols a new key)`,
    },
    {
      name: 'another kind of key',
      write: (f: ConfigFixture) => f.write('state/agent-key.pem', ecPem(), 0o600),
      problem: (file: string) => expect.stringContaining(`${file} holds no Ed25519 private key in PEM`) as string,
    },
    {
      name: 'a directory',
      write: (f: ConfigFixture) => f.mkdir('state/agent-key.pem'),
      problem: (file: string) => `${file} is not a regular file`,
    },
  ])('stops the agent with one line naming the setting when it is $name', ({ write, problem }) => {
    const file = write(f);
    const error = f.loadError({ env: { POSTERN_AGENT_KEY_FILE: file } });

    expect(error.setting).toBe('POSTERN_AGENT_KEY_FILE');
    expect(error.message.slice('POSTERN_AGENT_KEY_FILE: '.length)).toEqual(problem(file));
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain('PRIVATE KEY');
  });

  it('is made with mode 600 (its directory 700) when missing, and read back the same afterwards', () => {
    const file = f.path('keys/agent-key.pem');

    const made = loadOrCreateAgentKey(file, 'keyFile');
    const again = loadOrCreateAgentKey(file, 'keyFile');

    expect(made.created).toBe(true);
    expect(again.created).toBe(false);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(readdirSync(path.dirname(file))).toEqual(['agent-key.pem']);
    expect(again.key.publicKey).toBe(made.key.publicKey);
    expect(made.key.fingerprint).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('signs with the private half of the public key it presents', () => {
    const { key } = loadOrCreateAgentKey(f.path('state/agent-key.pem'), 'keyFile');
    const publicKey = createPublicKey({ key: Buffer.from(key.publicKey, 'base64url'), format: 'der', type: 'spki' });

    const signature = Buffer.from(key.sign('payload'), 'base64url');

    expect(verify(null, Buffer.from('payload'), publicKey, signature)).toBe(true);
    expect(verify(null, Buffer.from('other'), publicKey, signature)).toBe(false);
  });

  it('never replaces an existing key file', () => {
    const pem = ed25519Pem();
    const file = f.write('state/agent-key.pem', pem, 0o600);

    loadOrCreateAgentKey(file, 'keyFile');

    expect(readFileSync(file, 'utf8')).toBe(pem);
  });
});
