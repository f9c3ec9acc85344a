import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox, SecretUnreadableError } from './secret-box.js';
import { loadSecretKey } from './secret-key.js';
import { ConfigError } from '../config/config-error.js';

const context = { table: 'users', column: 'totp_secret', rowId: 'u-1' };

describe('secrets at rest', () => {
  it('opens what it sealed, with a fresh IV each time', () => {
    const box = new SecretBox([randomBytes(32)]);
    const first = box.seal('JBSWY3DPEHPK3PXP', context);
    const second = box.seal('JBSWY3DPEHPK3PXP', context);
    expect(first).not.toBe(second);
    expect(first).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.open(first, context)).toBe('JBSWY3DPEHPK3PXP');
  });

  it.each([
    ['another row', { ...context, rowId: 'u-2' }],
    ['another column', { ...context, column: 'ldap_dn' }],
    ['another table', { ...context, table: 'admins' }],
  ])('refuses a value moved to %s', (_name, elsewhere) => {
    const box = new SecretBox([randomBytes(32)]);
    expect(() => box.open(box.seal('secret', context), elsewhere)).toThrow(SecretUnreadableError);
  });

  it('refuses a tampered value and a value sealed under an unknown key', () => {
    const box = new SecretBox([randomBytes(32)]);
    const sealed = box.seal('secret', context);
    const parts = sealed.split('.');
    const ciphertext = Buffer.from(parts[4] ?? '', 'base64url');
    ciphertext[0] = (ciphertext[0] ?? 0) ^ 1;
    parts[4] = ciphertext.toString('base64url');
    expect(() => box.open(parts.join('.'), context)).toThrow(/authentication failed/);
    expect(() => new SecretBox([randomBytes(32)]).open(sealed, context)).toThrow(/which is not configured/);
  });

  it('rotates: a new first key seals, the old one still opens', () => {
    const oldKey = randomBytes(32);
    const sealedWithOld = new SecretBox([oldKey]).seal('secret', context);
    const rotated = new SecretBox([randomBytes(32), oldKey]);
    expect(rotated.open(sealedWithOld, context)).toBe('secret');
    expect(rotated.seal('x', context).split('.')[1]).not.toBe(sealedWithOld.split('.')[1]);
  });

  it('creates a private key file once and reuses it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'postern-key-'));
    try {
      const first = loadSecretKey(null, dir);
      expect(first.fromFile).toBe(true);
      expect(first.key).toHaveLength(32);
      expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(loadSecretKey(null, dir).key.equals(first.key)).toBe(true);
      chmodSync(path.join(dir, 'secret.key'), 0o644);
      expect(() => loadSecretKey(null, dir)).toThrow(ConfigError);
      writeFileSync(path.join(dir, 'secret.key'), 'c2hvcnQ=\n', { mode: 0o600 });
      chmodSync(path.join(dir, 'secret.key'), 0o600);
      expect(() => loadSecretKey(null, dir)).toThrow(/must hold 32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prefers the configured key over the file', () => {
    const key = randomBytes(32);
    expect(loadSecretKey(key, '/nonexistent')).toEqual({ key, fromFile: false });
  });
});
