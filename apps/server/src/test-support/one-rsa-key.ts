import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import type * as X509 from '../lib/x509.js';

/**
 * The x509 module with one RSA key for the whole test file: every certificate is still built and
 * signed when asked for, but on a key made once (the first time one is needed) instead of a new
 * RSA 3072 key each time, which takes 0.1 to 2 s of CPU. For files that walk or fuzz every route,
 * where the SAML key routes are called dozens of times and the keys are not the subject:
 *
 *     vi.mock('../lib/x509.js', async (importOriginal) =>
 *       (await import('../test-support/one-rsa-key.js')).withOneRsaKey(await importOriginal()),
 *     );
 *
 * (This module takes the real x509 module as an argument rather than importing it, so that it
 * can be used from the mock's factory.) The tests of the key routes themselves keep the real one.
 */
export function withOneRsaKey(x509: typeof X509): typeof X509 {
  let fileKey: KeyObject | undefined;
  return {
    ...x509,
    createSelfSignedCertificate: (options) =>
      x509.createSelfSignedCertificate({
        ...options,
        privateKey: options.privateKey ?? (fileKey ??= generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey),
      }),
  };
}
