import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** Where a sealed value lives; bound into the ciphertext so it cannot be moved to another row or column. */
export interface SecretContext {
  table: string;
  column: string;
  rowId: string;
}

/** A sealed value as the store holds it, with the place its ciphertext is bound to. */
export interface SealedValue {
  sealed: string;
  context: SecretContext;
}

/**
 * A sealed value could not be opened: wrong key, moved to another row, or tampered with. `context`
 * and `reason` name where and why, never the value.
 */
export class SecretUnreadableError extends Error {
  constructor(
    readonly context: SecretContext,
    readonly reason: string,
  ) {
    super(`cannot read the secret in ${context.table}.${context.column} of ${context.rowId}: ${reason}`);
    this.name = 'SecretUnreadableError';
  }
}

const FORMAT_VERSION = 'v1';
const IV_BYTES = 12;

/**
 * AES-256-GCM for secrets at rest (TOTP seeds, SAML keys, vendor credentials). Each value gets a
 * fresh 96-bit IV; the associated data is its table, column and row; the key id travels with the
 * value so keys can be rotated: the first key seals, every key listed can open.
 */
export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly #currentId: string;

  constructor(keys: readonly Buffer[]) {
    const [current] = keys;
    if (current === undefined) throw new Error('a SecretBox needs at least one key');
    this.#keys = new Map(keys.map((key) => [keyId(key), key]));
    this.#currentId = keyId(current);
  }

  /** The id of the key that seals; it travels in every value sealed now. */
  get currentKeyId(): string {
    return this.#currentId;
  }

  seal(plaintext: string, context: SecretContext): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key(this.#currentId), iv);
    cipher.setAAD(associatedData(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
    return [FORMAT_VERSION, this.#currentId, ...parts].join('.');
  }

  open(sealed: string, context: SecretContext): string {
    const [version, id, iv, tag, ciphertext, ...rest] = sealed.split('.');
    if (
      version !== FORMAT_VERSION ||
      id === undefined ||
      iv === undefined ||
      tag === undefined ||
      ciphertext === undefined ||
      rest.length > 0
    ) {
      throw new SecretUnreadableError(context, 'not a sealed value');
    }
    const key = this.#keys.get(id);
    if (key === undefined) throw new SecretUnreadableError(context, `sealed with key ${id}, which is not configured`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(associatedData(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(
        context,
        'authentication failed (moved to another place, altered, or sealed with another key)',
      );
    }
  }

  /**
   * A key for another purpose (an HMAC, say), derived from the sealing key with HKDF-SHA256 under its
   * own `label`, so every replica with the same POSTERN_SECRET_KEY derives the same key and no two
   * purposes share one.
   */
  deriveKey(label: string, bytes = 32): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key(this.#currentId), Buffer.alloc(0), `postern:${label}`, bytes));
  }

  #key(id: string): Buffer {
    const key = this.#keys.get(id);
    if (key === undefined) throw new Error(`no key ${id}`);
    return key;
  }
}

/** The id of the key a sealed value names, or null when it is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  const [version, id] = sealed.split('.');
  return version === FORMAT_VERSION && id !== undefined && id !== '' ? id : null;
}

/** A short, stable, non-secret name for a key. */
function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

function associatedData(context: SecretContext): Buffer {
  return Buffer.from(`postern:${context.table}:${context.column}:${context.rowId}`, 'utf8');
}
