import { closeSync, constants, fsyncSync, linkSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  type KeyObject,
} from 'node:crypto';
import path from 'node:path';
import { agentSealingKeyPayload, type AgentSealingKey } from '@postern/protocol';
import { deriveSealingKey, openSealed, type SealedPlace } from '@postern/protocol/sealing';
import { ConfigError } from './config-error.js';
import { readPrivateFile } from './private-file.js';
import { errorCode } from './sources.js';

/** The key file's name when keyFile is not set: beside the state file, in the state directory (mode 700). */
const DEFAULT_KEY_FILE_NAME = 'agent-key.pem';

/**
 * The agent's identity towards the server: an Ed25519 key pair whose public half the server
 * registered when the agent enrolled. The private key stays inside this object; nothing here can
 * print it (a KeyObject shows only its type).
 */
export interface AgentKey {
  /** The public key as the hello carries it: SubjectPublicKeyInfo DER, base64url. */
  readonly publicKey: string;
  /** "SHA256:" and the base64 SHA-256 of that DER, as the admin console and audit log show it. */
  readonly fingerprint: string;
  /** Signs `payload` (UTF-8); the signature in base64url. */
  sign(payload: string): string;
  /**
   * The X25519 key the server seals this agent's secrets to, signed by the identity key, as the
   * hello carries it. Derived from the identity key, so it needs no file of its own.
   */
  readonly sealingKey: AgentSealingKey;
  /** Opens a value the server sealed to this agent for `place`; throws SealedValueError. */
  open(sealed: string, place: SealedPlace): string;
}

/** Where the key file is when keyFile is not set. */
export function defaultKeyFile(stateFile: string): string {
  return path.join(path.dirname(stateFile), DEFAULT_KEY_FILE_NAME);
}

/**
 * Checks an existing key file without changing anything (every command, check-config too): a
 * regular file that only its owner can read, holding an Ed25519 private key. A missing file is
 * fine: `run` creates it.
 */
export function inspectKeyFile(file: string, label: string): void {
  readKeyFile(file, label);
}

/**
 * The agent's key: read from `file`, or, when there is none, made and written there (mode 600,
 * directory created with mode 700) without ever replacing a file that appeared meanwhile. A file
 * that exists but cannot be used stops the agent: making a new key would only get it refused
 * (the server holds the old one), and hide the problem.
 */
export function loadOrCreateAgentKey(file: string, label: string): { key: AgentKey; created: boolean } {
  const existing = readKeyFile(file, label);
  if (existing !== null) return { key: agentKeyOf(existing), created: false };
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' });
  try {
    writeNewFile(file, typeof pem === 'string' ? pem : pem.toString('utf8'));
  } catch (error) {
    throw new ConfigError(label, `cannot create the agent key ${file} (${errorCode(error)})`);
  }
  // Read back what is there: another process may have created the file first.
  const written = readKeyFile(file, label);
  if (written === null) throw new ConfigError(label, `${file} vanished right after it was written`);
  return { key: agentKeyOf(written), created: true };
}

/** The private key in `file`, or null when there is no such file; refuses a file it must not use. */
function readKeyFile(file: string, label: string): KeyObject | null {
  // Whoever reads the key can prove to the server that they are this agent.
  const content = readPrivateFile(file, label, 'allowed');
  if (content === null) return null;
  let key: KeyObject | null;
  try {
    key = createPrivateKey({ key: content, format: 'pem' });
  } catch {
    key = null;
  }
  // The message never repeats the content.
  if (key?.asymmetricKeyType !== 'ed25519') {
    throw new ConfigError(
      label,
      `${file} holds no Ed25519 private key in PEM; restore it from a backup, or remove it and have an admin rotate the agent token (the agent then enrols a new key)`,
    );
  }
  return key;
}

function agentKeyOf(privateKey: KeyObject): AgentKey {
  const der = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  const digest = createHash('sha256').update(der).digest('base64');
  const publicKey = der.toString('base64url');
  const signText = (payload: string) => sign(null, Buffer.from(payload, 'utf8'), privateKey).toString('base64url');
  const sealing = deriveSealingKey(privateKey);
  return {
    publicKey,
    fingerprint: `SHA256:${digest.replace(/=+$/, '')}`,
    sign: signText,
    sealingKey: {
      publicKey: sealing.publicKey,
      signature: signText(agentSealingKeyPayload(publicKey, sealing.publicKey)),
    },
    open: (sealed, place) => openSealed(sealing.privateKey, sealed, place),
  };
}

/**
 * Writes `content` to a new file, atomically and never over an existing one: a private temporary
 * file, synced, then hard-linked to the name (link fails if the name exists, where rename would
 * replace it). A crash leaves either no key file or a whole one.
 */
function writeNewFile(file: string, content: string): void {
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temporary = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}`);
  const fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    // Somebody else's key got there first; the caller reads that one.
    if (errorCode(error) !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  syncDirectory(dir);
}

/** Makes the new name durable; best effort (not every file system lets a directory be synced). */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The key is written; only its survival of a power cut right now is less certain.
  }
}
