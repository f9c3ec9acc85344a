import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { USER_LIMIT_OVERAGE_MAX_PERCENT } from '@postern/protocol';

/**
 * The licence key format, version 1:
 *
 *   postern-licence-v1.<base64url(JSON payload)>.<base64url(Ed25519 signature)>
 *
 * The signature covers the ASCII bytes `postern-licence-v1.<payload part>`, so the version prefix is
 * signed too. Licences are checked offline against the installation's trusted public keys; nothing
 * here talks to a network.
 */
export const LICENCE_PREFIX = 'postern-licence-v1';

/** The longest licence text accepted (the API's LicenceBody allows the same). */
const LICENCE_MAX_LENGTH = 8192;

/**
 * How far a licence's IssuedAt may lie ahead of this server's clock: clocks of the issuer and of the
 * installation may disagree by a little, but a licence from further ahead is refused. Otherwise a
 * key dated into the future (a mistake, or a key minted to be used later) would be accepted now.
 */
export const LICENCE_CLOCK_SKEW_MS = 5 * 60_000;

const ED25519_SIGNATURE_BYTES = 64;
const ED25519_PUBLIC_KEY_BYTES = 32;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** What a licence grants. Field names match the API's licence status. */
export const LicencePayload = z
  .object({
    ID: z.string().trim().min(1).max(128),
    Licensee: z.string().trim().min(1).max(256),
    UserLimit: z.number().int().min(1),
    /** Share of UserLimit that may be exceeded (the grace allowance), in percent. */
    UserLimitOveragePercentage: z.number().int().min(0).max(USER_LIMIT_OVERAGE_MAX_PERCENT),
    /** Concurrent sessions per user. */
    SessionLimit: z.number().int().min(1),
    /** Agents allowed; 0 sets no limit. */
    MaxMachines: z.number().int().min(0),
    IssuedAt: z.iso.datetime({ offset: true }),
    Expires: z.iso.datetime({ offset: true }),
  })
  .refine((payload) => Date.parse(payload.Expires) > Date.parse(payload.IssuedAt), {
    message: 'Expires must be after IssuedAt',
    path: ['Expires'],
  });
export type LicencePayload = z.infer<typeof LicencePayload>;

/**
 * The outcome of checking a licence text. `expired` still carries the payload so the status can show
 * what the licence was; `untrusted` does not, because nothing in it can be believed. `notYetValid`:
 * signed, but issued later than now plus LICENCE_CLOCK_SKEW_MS; it licenses nothing.
 */
export type LicenceCheck =
  | { kind: 'valid'; licence: LicencePayload }
  | { kind: 'expired'; licence: LicencePayload }
  | { kind: 'notYetValid'; licence: LicencePayload }
  | { kind: 'untrusted' }
  | { kind: 'malformed'; reason: string };

/** Signs a payload with an Ed25519 private key and returns the licence text. */
export function issueLicence(payload: LicencePayload, privateKey: KeyObject): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new TypeError('licences are signed with an Ed25519 private key');
  }
  const checked = LicencePayload.parse(payload);
  const signed = `${LICENCE_PREFIX}.${Buffer.from(JSON.stringify(checked), 'utf8').toString('base64url')}`;
  const signature = sign(null, Buffer.from(signed, 'ascii'), privateKey);
  return `${signed}.${signature.toString('base64url')}`;
}

/**
 * Parses a licence text and verifies it against the trusted public keys (any one may match).
 * Order: the shape (prefix, parts, encoding, payload fields) first, so pasted garbage reads as
 * malformed; then the signature; then the issue time and the expiry against `now` (epoch
 * milliseconds).
 */
export function checkLicence(text: string, trustedKeys: readonly KeyObject[], now: number): LicenceCheck {
  const parsed = parsedLicence(text.trim());
  if ('reason' in parsed) return { kind: 'malformed', reason: parsed.reason };
  if (!trustedKeys.some((key) => verifiesWith(key, parsed.signed, parsed.signature))) return { kind: 'untrusted' };
  if (Date.parse(parsed.payload.IssuedAt) > now + LICENCE_CLOCK_SKEW_MS) {
    return { kind: 'notYetValid', licence: parsed.payload };
  }
  if (now >= Date.parse(parsed.payload.Expires)) return { kind: 'expired', licence: parsed.payload };
  return { kind: 'valid', licence: parsed.payload };
}

type ParsedLicence = { reason: string } | { payload: LicencePayload; signed: Buffer; signature: Buffer };

/**
 * Licence texts already parsed. Every status poll and grant checks the stored licence, and parsing
 * (base64, JSON, the payload schema) would otherwise be most of that check. Bounded like `verified`.
 */
const parsedTexts = new Map<string, ParsedLicence>();
const PARSED_CACHE_SIZE = 32;

function parsedLicence(trimmed: string): ParsedLicence {
  const known = parsedTexts.get(trimmed);
  if (known !== undefined) return known;
  const parsed = parseLicenceText(trimmed);
  if (parsedTexts.size >= PARSED_CACHE_SIZE) parsedTexts.delete(parsedTexts.keys().next().value ?? '');
  parsedTexts.set(trimmed, parsed);
  return parsed;
}

/** The shape of a licence text: prefix, parts, encoding, payload fields; not yet its signature. */
function parseLicenceText(trimmed: string): ParsedLicence {
  if (trimmed.length === 0) return { reason: 'empty' };
  if (trimmed.length > LICENCE_MAX_LENGTH) return { reason: 'too long' };
  const parts = trimmed.split('.');
  if (parts.length !== 3) return { reason: `expected ${LICENCE_PREFIX}.<payload>.<signature>` };
  const [prefix = '', payloadPart = '', signaturePart = ''] = parts;
  if (prefix !== LICENCE_PREFIX) return { reason: `not a ${LICENCE_PREFIX} licence` };

  const payloadBytes = decodeBase64Url(payloadPart);
  const signature = decodeBase64Url(signaturePart);
  if (payloadBytes === null) return { reason: 'payload is not base64url' };
  if (signature?.length !== ED25519_SIGNATURE_BYTES) return { reason: 'signature is not 64 bytes' };

  let json: unknown;
  try {
    json = JSON.parse(payloadBytes.toString('utf8'));
  } catch {
    return { reason: 'payload is not JSON' };
  }
  const payload = LicencePayload.safeParse(json);
  if (!payload.success) {
    const issue = payload.error.issues[0];
    return { reason: `payload ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}` };
  }
  return { payload: payload.data, signed: Buffer.from(`${prefix}.${payloadPart}`, 'ascii'), signature };
}

/** A fresh Ed25519 key pair for signing licences. */
export function generateLicenceKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

/** The private key as PKCS#8 PEM, as `postern licence keygen` writes it. */
export function privateKeyPem(privateKey: KeyObject): string {
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

/** The public key as base64 of its raw 32 bytes (the form POSTERN_LICENCE_PUBLIC_KEYS takes). */
export function publicKeyBase64(publicKey: KeyObject): string {
  const { x } = publicKey.export({ format: 'jwk' });
  if (x === undefined) throw new TypeError('not an Ed25519 public key');
  return Buffer.from(x, 'base64url').toString('base64');
}

/** A public key from its raw 32 bytes. */
export function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES) throw new TypeError('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
}

/** A public key from base64 or base64url of its raw 32 bytes, or null when it is not one. */
export function publicKeyFromBase64(text: string): KeyObject | null {
  const value = text.trim();
  if (!/^[A-Za-z0-9+/_-]+=*$/.test(value)) return null;
  const raw = Buffer.from(value, 'base64');
  return raw.length === ED25519_PUBLIC_KEY_BYTES ? publicKeyFromRaw(raw) : null;
}

/** Strict base64url: Buffer.from ignores stray characters, so check the alphabet and round trip. */
function decodeBase64Url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/**
 * Signature checks already made, by key, signed text and signature. The licence is checked on every
 * status and grant call; an Ed25519 verification is the costliest part of that, and its answer for
 * the same three inputs never changes. Bounded: a licence text rarely changes.
 */
const verified = new Map<string, boolean>();
const VERIFIED_CACHE_SIZE = 32;

function verifiesWith(key: KeyObject, data: Buffer, signature: Buffer): boolean {
  const id = `${keyId(key)}|${data.toString('ascii')}|${signature.toString('base64')}`;
  const known = verified.get(id);
  if (known !== undefined) return known;
  let result: boolean;
  try {
    result = verify(null, data, key, signature);
  } catch {
    // A key of another type cannot have signed it.
    result = false;
  }
  if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value ?? '');
  verified.set(id, result);
  return result;
}

/** Identities already computed: exporting a key costs more than the cached verification it keys. */
const keyIds = new WeakMap<KeyObject, string>();

/** A key's identity: its public key in DER (SPKI), base64. */
function keyId(key: KeyObject): string {
  let id = keyIds.get(key);
  if (id === undefined) {
    id = key.export({ format: 'der', type: 'spki' }).toString('base64');
    keyIds.set(key, id);
  }
  return id;
}
