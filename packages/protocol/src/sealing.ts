import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/**
 * Secrets sealed to an agent: vendor credentials and sensitive script variables are encrypted by the
 * server to the X25519 public key the agent registered, so only that agent can open them; the store
 * and the server's own key cannot. Node only (node:crypto), hence its own entry point
 * (`@postern/protocol/sealing`), out of the web app's reach.
 *
 * A sealed value is one string, `sealed:v1:` and base64url of
 *   key id (8) | ephemeral X25519 public key (32) | IV (12) | GCM tag (16) | ciphertext,
 * where the key id is the start of the SHA-256 of the recipient key's SPKI DER: it lets the server
 * tell, without any private key, whether a value was sealed to an agent's current key. The AES-256-GCM
 * key is HKDF-SHA256 of the ECDH secret, salted with both public keys. The associated data binds the
 * value to its recipient key, its owner (a backend or a knoc, by id) and its field, so a value copied
 * to another row or field, or presented to another key, does not open.
 */
export const SEALED_PREFIX = 'sealed:v1:';

const KEY_ID_BYTES = 8;
const RAW_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = KEY_ID_BYTES + RAW_KEY_BYTES + IV_BYTES + TAG_BYTES;
/** DER prefixes that wrap a raw 32-byte X25519 key as SPKI (public) and PKCS#8 (private). */
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
/** The DER prefix that wraps a raw 32-byte Ed25519 key as SPKI. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const HKDF_INFO = 'postern-sealed-v1';
/** What the agent's sealing key is derived under from its identity key's seed. */
const SEALING_KEY_INFO = 'postern-agent-sealing-key-v1';

/** Where a sealed value belongs: bound into it, so it opens only there. */
export interface SealedPlace {
  owner: 'backend' | 'knoc';
  /** The backend's or the knoc's id. */
  ownerId: string;
  /** A backend field (`Password`) or a knoc's script variable (`EnvVars.<Name>`). */
  field: string;
}

/** A value cannot be opened; `reason` says why, never any part of the value. */
export class SealedValueError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SealedValueError';
  }
}

/** Whether `value` is in the sealed format (it may still not open). */
export function isSealedValue(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(SEALED_PREFIX);
}

/**
 * The X25519 public key in `publicKey` (SPKI DER, base64url) when it is one in the canonical
 * encoding; null for anything else.
 */
export function parseSealingPublicKey(publicKey: string): KeyObject | null {
  return parseOkpPublicKey(publicKey, 'X25519');
}

/**
 * An Ed25519 or X25519 public key from its canonical encoding, SPKI DER in unpadded base64url (as
 * Node exports it), or null for anything else. Canonical means one key has one spelling, so keys
 * compare as strings. The SPKI DER of such a key is always the curve's fixed prefix and the 32 raw
 * key bytes, so it is checked as bytes and the key built from the raw bytes: OpenSSL 3's DER decoder
 * costs about fifteen times as much, which a fleet of thousands of agents reconnecting at once paid
 * three times per connection.
 */
export function parseOkpPublicKey(publicKey: string, curve: 'Ed25519' | 'X25519'): KeyObject | null {
  const der = Buffer.from(publicKey, 'base64url');
  if (der.toString('base64url') !== publicKey) return null;
  const prefix = curve === 'Ed25519' ? ED25519_SPKI_PREFIX : X25519_SPKI_PREFIX;
  if (der.length !== prefix.length + RAW_KEY_BYTES || !der.subarray(0, prefix.length).equals(prefix)) return null;
  try {
    return createPublicKey({
      key: { kty: 'OKP', crv: curve, x: der.subarray(prefix.length).toString('base64url') },
      format: 'jwk',
    });
  } catch {
    return null;
  }
}

/** The id a sealed value names its recipient by: hex of the first bytes of SHA-256 of the SPKI DER. */
export function sealingKeyId(publicKey: string): string {
  return createHash('sha256')
    .update(Buffer.from(publicKey, 'base64url'))
    .digest()
    .subarray(0, KEY_ID_BYTES)
    .toString('hex');
}

/** The recipient key id a sealed value names, or null when it is not one. */
export function sealedValueKeyId(value: string): string | null {
  if (!isSealedValue(value)) return null;
  const bytes = Buffer.from(value.slice(SEALED_PREFIX.length), 'base64url');
  return bytes.length > HEADER_BYTES ? bytes.subarray(0, KEY_ID_BYTES).toString('hex') : null;
}

/** Seals `plaintext` to the agent key `publicKey` (SPKI DER, base64url) for one place. */
export function sealToAgent(publicKey: string, plaintext: string, place: SealedPlace): string {
  const recipient = parseSealingPublicKey(publicKey);
  if (recipient === null) throw new Error('not an X25519 public key');
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralRaw = spkiOf(ephemeral.publicKey).subarray(X25519_SPKI_PREFIX.length);
  const recipientRaw = spkiOf(recipient).subarray(X25519_SPKI_PREFIX.length);
  const key = derive(
    diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient }),
    ephemeralRaw,
    recipientRaw,
  );
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const keyId = Buffer.from(sealingKeyId(publicKey), 'hex');
  cipher.setAAD(associatedData(keyId, place));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return (
    SEALED_PREFIX + Buffer.concat([keyId, ephemeralRaw, iv, cipher.getAuthTag(), ciphertext]).toString('base64url')
  );
}

/** Opens a value sealed to `privateKey` (X25519) for `place`; throws {@link SealedValueError}. */
export function openSealed(privateKey: KeyObject, value: string, place: SealedPlace): string {
  if (!isSealedValue(value)) throw new SealedValueError('not a sealed value');
  const bytes = Buffer.from(value.slice(SEALED_PREFIX.length), 'base64url');
  if (bytes.length <= HEADER_BYTES) throw new SealedValueError('not a sealed value');
  const recipientSpki = spkiOf(createPublicKey(privateKey));
  const keyId = bytes.subarray(0, KEY_ID_BYTES);
  if (!keyId.equals(Buffer.from(sealingKeyId(recipientSpki.toString('base64url')), 'hex'))) {
    throw new SealedValueError('sealed to another agent key (the backend moved or the agent token was rotated)');
  }
  let offset = KEY_ID_BYTES;
  const take = (length: number) => bytes.subarray(offset, (offset += length));
  const ephemeralRaw = take(RAW_KEY_BYTES);
  const iv = take(IV_BYTES);
  const tag = take(TAG_BYTES);
  const ciphertext = bytes.subarray(offset);
  try {
    const ephemeral = createPublicKey({
      key: Buffer.concat([X25519_SPKI_PREFIX, ephemeralRaw]),
      format: 'der',
      type: 'spki',
    });
    const key = derive(
      diffieHellman({ privateKey, publicKey: ephemeral }),
      ephemeralRaw,
      recipientSpki.subarray(X25519_SPKI_PREFIX.length),
    );
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAAD(associatedData(keyId, place));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    throw new SealedValueError('authentication failed (moved to another place, altered, or sealed to another key)');
  }
}

/**
 * The agent's sealing key pair, derived from its Ed25519 identity key (HKDF-SHA256 of the private
 * seed under its own label): it lives and dies with the identity key, in the same protected file,
 * and changes only when the agent enrols a new identity (token rotation).
 */
export function deriveSealingKey(identityPrivateKey: KeyObject): { privateKey: KeyObject; publicKey: string } {
  const seed = identityPrivateKey.export({ format: 'jwk' }).d;
  if (identityPrivateKey.asymmetricKeyType !== 'ed25519' || seed === undefined) {
    throw new Error('the identity key is not an Ed25519 private key');
  }
  const raw = Buffer.from(
    hkdfSync('sha256', Buffer.from(seed, 'base64url'), Buffer.alloc(0), SEALING_KEY_INFO, RAW_KEY_BYTES),
  );
  const privateKey = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, raw]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: spkiOf(createPublicKey(privateKey)).toString('base64url') };
}

function spkiOf(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' });
}

function derive(shared: Buffer, ephemeralRaw: Buffer, recipientRaw: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeralRaw, recipientRaw]), HKDF_INFO, 32));
}

function associatedData(keyId: Buffer, place: SealedPlace): Buffer {
  // Newline-separated: no id or field name holds one, so the parts cannot be shifted.
  return Buffer.from(
    `${HKDF_INFO}\n${keyId.toString('hex')}\n${place.owner}\n${place.ownerId}\n${place.field}`,
    'utf8',
  );
}
