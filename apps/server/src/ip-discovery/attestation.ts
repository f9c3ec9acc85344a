import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalIp, IP_ATTESTATION_TTL_MS } from '@postern/protocol';
import type { SecretBox } from '../secrets/secret-box.js';

/**
 * Attestations: the discovery responder's signed statement "I saw a request from this address on this
 * port at this time". The browser hands it back with the address to /api/log_ips and /api/grant, and
 * the grant engine accepts a discovered address only with one (or when it is the request's own
 * address): a browser can report only addresses it really used, not any address it likes.
 *
 * A token is `v1.<issued at, ms>.<HMAC-SHA256, base64url>`; the MAC covers the version, the canonical
 * address, the port and the time. The address and port travel beside the token (DiscoveredIp's IP
 * and Port), so the token stays short. The key is derived from POSTERN_SECRET_KEY under its own label,
 * so every replica verifies what any replica's responder signed, and no other use of the key can
 * produce one.
 */

/** Tokens issued up to this far ahead of the verifier's clock still count: replicas' clocks differ a little. */
export const ATTESTATION_CLOCK_SKEW_MS = 10_000;

const VERSION = 'v1';
const KEY_LABEL = 'ip-discovery-attestation-v1';
const TOKEN = /^v1\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/;

/** What an attestation vouches for. */
export interface AttestedAddress {
  /** The address as seen (any spelling; it is signed and checked in canonical form). */
  ip: string;
  port: number;
}

/** Signs and checks attestations with a key derived from the server's secret key. */
export class IpAttestor {
  readonly #key: Buffer;

  constructor(secrets: SecretBox) {
    this.#key = secrets.deriveKey(KEY_LABEL);
  }

  /** A token for this address and port, issued at `now` (ms). */
  issue(subject: AttestedAddress, now: number): string {
    const issuedAt = Math.floor(now);
    return `${VERSION}.${issuedAt}.${this.#mac(canonical(subject.ip), subject.port, issuedAt).toString('base64url')}`;
  }

  /**
   * True when `token` was issued by a Postern sharing this secret key for exactly this address and
   * port, no longer than IP_ATTESTATION_TTL_MS ago and not (beyond the clock skew) in the future.
   */
  verify(token: string, subject: AttestedAddress, now: number): boolean {
    const match = TOKEN.exec(token);
    if (match === null) return false;
    const issuedAt = Number(match[1]);
    if (issuedAt > now + ATTESTATION_CLOCK_SKEW_MS || now - issuedAt > IP_ATTESTATION_TTL_MS) return false;
    // Compared as text: base64url's spare bits in the last character would let two spellings decode alike.
    const given = Buffer.from(match[2] ?? '', 'latin1');
    const expected = Buffer.from(
      this.#mac(canonical(subject.ip), subject.port, issuedAt).toString('base64url'),
      'latin1',
    );
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #mac(ip: string, port: number, issuedAt: number): Buffer {
    return createHmac('sha256', this.#key).update(`${VERSION}\n${ip}\n${port}\n${issuedAt}`).digest();
  }
}

/** One spelling per address, so `::ffff:192.0.2.7` and `192.0.2.7` are the same subject. */
function canonical(ip: string): string {
  return canonicalIp(ip) ?? ip;
}

const attestors = new WeakMap<SecretBox, IpAttestor>();

/** The attestor for this secret box, made once (the key derivation is not repeated per request). */
export function ipAttestor(secrets: SecretBox): IpAttestor {
  let attestor = attestors.get(secrets);
  if (attestor === undefined) {
    attestor = new IpAttestor(secrets);
    attestors.set(secrets, attestor);
  }
  return attestor;
}
