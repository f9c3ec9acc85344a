import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from './x509.js';

/** RSA key generation and signing: milliseconds on a quiet machine, seconds on a busy one. */
const CPU_HEAVY_TIMEOUT_MS = 60_000;

describe('self-signed certificates', { timeout: CPU_HEAVY_TIMEOUT_MS }, () => {
  const now = new Date(Date.UTC(2026, 10, 22, 9, 0, 0));
  let privateKey: KeyObject;
  let made: ReturnType<typeof createSelfSignedCertificate>;
  let certificate: X509Certificate;
  // Made once for the file, in a hook with a generous limit (not while the file is collected).
  beforeAll(() => {
    privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    made = createSelfSignedCertificate({ commonName: 'access.example.com', days: 3650, now, privateKey });
    certificate = new X509Certificate(made.certificatePem);
  }, CPU_HEAVY_TIMEOUT_MS);

  it('is signed by its own key and names its subject and issuer', () => {
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(made.privateKeyPem))).toBe(true);
    expect(certificate.subject).toBe('CN=access.example.com');
    expect(certificate.issuer).toBe('CN=access.example.com');
  });

  it('is valid from now for the days asked, past 2049 with GeneralizedTime', () => {
    expect(new Date(certificate.validFrom).toISOString()).toBe('2026-11-22T09:00:00.000Z');
    expect(new Date(certificate.validTo).toISOString()).toBe('2036-11-19T09:00:00.000Z');
    const long = new X509Certificate(
      createSelfSignedCertificate({ commonName: 'x', days: 36500, now, privateKey }).certificatePem,
    );
    expect(new Date(long.validTo).getUTCFullYear()).toBe(2126);
  });

  // 2,000 RSA signatures: well under a second on a quiet machine, far more on a busy one.
  it('always encodes its serial minimally: every one of 2,000 certificates parses', () => {
    // A serial starting with a zero byte was not minimal DER and broke about 1 certificate in 256.
    const privateKey = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    let unparsable = 0;
    for (let i = 0; i < 2_000; i += 1) {
      const { certificatePem } = createSelfSignedCertificate({ commonName: 'serials', days: 1, privateKey });
      try {
        new X509Certificate(certificatePem);
      } catch {
        unparsable += 1;
      }
    }
    expect(unparsable).toBe(0);
  });

  it('is not a CA and has a random positive serial', () => {
    expect(certificate.ca).toBe(false);
    const other = new X509Certificate(
      createSelfSignedCertificate({ commonName: 'x', days: 1, now, privateKey }).certificatePem,
    );
    expect(other.serialNumber).not.toBe(certificate.serialNumber);
  });

  it.skipIf(!existsSync('/usr/bin/openssl'))('parses with openssl too', () => {
    const text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: made.certificatePem }).toString();
    expect(text).toContain('Signature Algorithm: sha256WithRSAEncryption');
    expect(text).toContain('CA:FALSE');
    expect(text).toContain('Digital Signature, Key Encipherment');
  });
});
