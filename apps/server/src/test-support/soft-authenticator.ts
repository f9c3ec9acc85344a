import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { AuthenticationResponseJson, RegistrationResponseJson } from '@postern/protocol';

/**
 * A software authenticator for the API tests: an ES256 key per credential (node:crypto), packed the
 * way a real authenticator packs it (authenticator data, a `none` attestation in CBOR, client data
 * as a browser writes it), so the server's ceremony checks run for real. Every part a test may
 * spoil is an option: the origin, the RP ID, the flags, the counter, the user handle.
 */

/** Flags of the authenticator data (WebAuthn §6.1). */
const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

/** The parts of options.json the authenticator reads. */
interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}

/** What a test may change about one answer. */
export interface AnswerOptions {
  /** The page's origin the browser reports; the server's own by default. */
  origin?: string;
  /** The RP ID the authenticator scopes the answer to (its hash in the authenticator data). */
  rpId?: string;
  /** User verification (a PIN, a fingerprint); on by default. */
  userVerified?: boolean;
  /** Say the credential is synced (backup eligible and backed up). */
  backedUp?: boolean;
  /** The signature counter to report instead of the next one. */
  counter?: number;
  /** The challenge to sign instead of the one asked for. */
  challenge?: string;
}

/** A credential the authenticator holds. */
export interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  counter: number;
}

const ORIGIN = 'http://localhost';

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /** Answers navigator.credentials.create(): a new credential, and the response the browser would send. */
  register(
    options: Record<string, unknown>,
    answer: AnswerOptions & { discoverable?: boolean; again?: SoftCredential } = {},
  ): RegistrationResponseJson {
    const asked = options as unknown as CreationOptions;
    const rpId = answer.rpId ?? asked.rp.id ?? 'localhost';
    // `again`: the credential it holds, registered once more (as a browser ignoring excludeCredentials).
    const keys = answer.again === undefined ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : undefined;
    const privateKey = answer.again?.privateKey ?? keys?.privateKey;
    const publicKey = answer.again?.publicKey ?? keys?.publicKey;
    if (privateKey === undefined || publicKey === undefined) throw new Error('no key');
    const credentialId = answer.again === undefined ? randomBytes(16) : Buffer.from(answer.again.id, 'base64url');
    const credential: SoftCredential = {
      id: credentialId.toString('base64url'),
      rpId,
      userHandle: asked.user.id,
      privateKey,
      publicKey,
      counter: answer.counter ?? 0,
    };
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x ?? '', 'base64url')],
      [-3, Buffer.from(jwk.y ?? '', 'base64url')],
    ]);
    const attested = Buffer.concat([
      Buffer.alloc(16), // AAGUID: none
      u16(credentialId.length),
      credentialId,
      Buffer.from(isoCBOR.encode(coseKey)),
    ]);
    const authData = Buffer.concat([authenticatorData(rpId, flags(answer) | AT, credential.counter), attested]);
    const attestation = new Map<string, string | Uint8Array | Map<string, string>>();
    attestation.set('fmt', 'none');
    attestation.set('attStmt', new Map());
    attestation.set('authData', authData);
    const attestationObject = isoCBOR.encode(attestation);
    if (answer.again === undefined) this.credentials.push(credential);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON: clientData('webauthn.create', answer.challenge ?? asked.challenge, answer.origin),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: answer.discoverable ?? true } },
    };
  }

  /**
   * Answers navigator.credentials.get() with `credential` (by default the first one the options
   * allow, or for a passwordless request the first one held for the RP ID).
   */
  assert(
    options: Record<string, unknown>,
    answer: AnswerOptions & { credential?: SoftCredential; userHandle?: string | null } = {},
  ): AuthenticationResponseJson {
    const asked = options as unknown as RequestOptions;
    const rpId = answer.rpId ?? asked.rpId ?? 'localhost';
    const allowed = asked.allowCredentials ?? [];
    const credential =
      answer.credential ??
      this.credentials.find((held) =>
        allowed.length === 0 ? held.rpId === (asked.rpId ?? rpId) : allowed.some((allow) => allow.id === held.id),
      );
    if (credential === undefined) throw new Error('the soft authenticator holds no credential for these options');
    credential.counter = answer.counter ?? credential.counter + 1;
    const authData = authenticatorData(rpId, flags(answer), credential.counter);
    const clientDataJSON = clientData('webauthn.get', answer.challenge ?? asked.challenge, answer.origin);
    const signed = Buffer.concat([
      authData,
      createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest(),
    ]);
    const userHandle = answer.userHandle === undefined ? credential.userHandle : answer.userHandle;
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key',
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        // ECDSA over authenticator data and the client data's hash, DER-encoded as WebAuthn has it.
        signature: sign('sha256', signed, credential.privateKey).toString('base64url'),
        ...(userHandle === null ? {} : { userHandle }),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}

function flags(answer: AnswerOptions): number {
  return UP | (answer.userVerified === false ? 0 : UV) | (answer.backedUp === true ? BE | BS : 0);
}

function authenticatorData(rpId: string, flagBits: number, counter: number): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flagBits]), count]);
}

function clientData(type: string, challenge: string, origin = ORIGIN): string {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false })).toString('base64url');
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}
