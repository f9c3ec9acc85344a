import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox, SecretUnreadableError, sealedKeyId } from './secret-box.js';
import { createSecretKeyFile, readSecretKeyFile, secretKeyFilePath } from './secret-key.js';
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
    expect(sealedKeyId(rotated.seal('x', context))).toBe(rotated.currentKeyId);
    expect(sealedKeyId(sealedWithOld)).not.toBe(rotated.currentKeyId);
    expect(sealedKeyId('not sealed')).toBeNull();
  });

  it('creates a private key file and reads it back; refuses one others can read or of the wrong size', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'postern-key-'));
    const file = secretKeyFilePath(dir);
    try {
      expect(readSecretKeyFile(file)).toBeNull();
      const created = createSecretKeyFile(file);
      expect(created).toHaveLength(32);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readSecretKeyFile(file)?.equals(created)).toBe(true);
      expect(createSecretKeyFile(file).equals(created)).toBe(true);
      chmodSync(file, 0o644);
      expect(() => readSecretKeyFile(file)).toThrow(ConfigError);
      writeFileSync(file, 'c2hvcnQ=\n', { mode: 0o600 });
      chmodSync(file, 0o600);
      expect(() => readSecretKeyFile(file)).toThrow(/must hold 32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
