import { createPublicKey, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A minimal self-signed X.509 v3 certificate builder (RSA, SHA-256), for SAML service-provider
 * signing keys. Node can parse and verify certificates (X509Certificate) but not create them; this
 * writes the DER by hand instead of depending on a large library or on the openssl binary.
 */

const OID_SHA256_WITH_RSA = '1.2.840.113549.1.1.11';
const OID_COMMON_NAME = '2.5.4.3';
const OID_BASIC_CONSTRAINTS = '2.5.29.19';
const OID_KEY_USAGE = '2.5.29.15';

function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), encodeLength(content.length), content]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const explicit = (tagNumber: number, content: Buffer) => tlv(0xa0 + tagNumber, content);
const derNull = () => Buffer.from([0x05, 0x00]);
const octetString = (content: Buffer) => tlv(0x04, content);
const bitString = (content: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
const boolean = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));

function integer(value: Buffer): Buffer {
  // DER integers are two's complement: a leading 1 bit would make it negative.
  const positive = (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value;
  return tlv(0x02, positive);
}

function objectIdentifier(oid: string): Buffer {
  const [first = 0, second = 0, ...rest] = oid.split('.').map(Number);
  const bytes = [40 * first + second];
  for (const part of rest) {
    const chunk: number[] = [part & 0x7f];
    for (let remaining = part >> 7; remaining > 0; remaining >>= 7) chunk.unshift((remaining & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime from 2050 (RFC 5280 section 4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}

function name(commonName: string): Buffer {
  return sequence(set(sequence(objectIdentifier(OID_COMMON_NAME), utf8String(commonName))));
}

export interface SelfSignedCertificate {
  certificatePem: string;
  privateKeyPem: string;
}

/** A new RSA key pair and a self-signed certificate for it, valid from now for `days`. */
export function createSelfSignedCertificate(options: {
  commonName: string;
  days: number;
  now?: Date;
  /** Defaults to a new RSA 3072-bit key. */
  privateKey?: KeyObject;
}): SelfSignedCertificate {
  const privateKey = options.privateKey ?? generateKeyPairSync('rsa', { modulusLength: 3072 }).privateKey;
  const spki = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  const notBefore = options.now ?? new Date();
  const notAfter = new Date(notBefore.getTime() + options.days * 86_400_000);
  const signatureAlgorithm = sequence(objectIdentifier(OID_SHA256_WITH_RSA), derNull());
  const serial = randomBytes(16);
  // Positive and minimal in DER: high bit clear (not negative) and first byte non-zero (a leading
  // zero byte before a byte below 0x80 is not minimal, and parsers refuse the certificate).
  serial[0] = ((serial[0] ?? 0) & 0x7f) | 0x40;
  const extensions = explicit(
    3,
    sequence(
      sequence(objectIdentifier(OID_BASIC_CONSTRAINTS), boolean(true), octetString(sequence())),
      // digitalSignature and keyEncipherment: signing SAML messages, receiving encrypted assertions.
      sequence(objectIdentifier(OID_KEY_USAGE), boolean(true), octetString(tlv(0x03, Buffer.from([0x05, 0xa0])))),
    ),
  );
  const tbs = sequence(
    explicit(0, integer(Buffer.from([2]))),
    integer(serial),
    signatureAlgorithm,
    name(options.commonName),
    sequence(time(notBefore), time(notAfter)),
    name(options.commonName),
    spki,
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = sequence(tbs, signatureAlgorithm, bitString(signature));
  return {
    certificatePem: toPem('CERTIFICATE', certificate),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

function toPem(label: string, der: Buffer): string {
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}
