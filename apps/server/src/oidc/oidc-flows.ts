import { createHash, createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { OidcRealm } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { bool } from '../lib/rows.js';

/**
 * How long a started sign-in may be finished: long enough to sign in at the provider with a second
 * factor, short enough that an old tab or a leaked callback URL is useless.
 */
export const OIDC_FLOW_LIFETIME_MS = 10 * 60_000;

/** A sign-in started and not yet finished, as the store keeps it. */
export interface OidcFlow {
  realm: OidcRealm;
  nonce: string;
  /** SHA-256 of the flow cookie of the browser that started it. */
  browserHash: string;
  kiosk: boolean;
  createdAt: number;
  expiresAt: number;
}

/** SHA-256, base64url: what the store keeps of a state or a flow cookie. */
export function hashOf(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('base64url');
}

/**
 * The PKCE code verifier of the flow with this `state`: an HMAC of the state under a key derived from
 * the installation's secret key. Every replica computes the same one, and the store never holds it,
 * so not even a copy of the store can redeem an authorization code. 43 base64url characters (RFC 7636).
 */
export function pkceVerifier(secrets: SecretBox, state: string): string {
  return createHmac('sha256', secrets.deriveKey('oidc-pkce-verifier')).update(state, 'utf8').digest('base64url');
}

/** Keeps a started flow under its state's hash. */
export async function saveFlow(db: Kysely<Database>, state: string, flow: OidcFlow): Promise<void> {
  await db
    .insertInto('oidcFlows')
    .values({ id: hashOf(state), ...flow })
    .execute();
}

/**
 * Takes the flow with this state for this realm out of the store, if it is there and unexpired: a
 * flow is finished once, on whichever replica its callback reaches first (the DELETE decides; the
 * other gets null), and a callback of one realm cannot finish the other's.
 */
export async function takeFlow(
  db: Kysely<Database>,
  state: string,
  realm: OidcRealm,
  now: number,
): Promise<OidcFlow | null> {
  const row = await db
    .deleteFrom('oidcFlows')
    .where('id', '=', hashOf(state))
    .where('realm', '=', realm)
    .where('expiresAt', '>', now)
    .returning(['realm', 'nonce', 'browserHash', 'kiosk', 'createdAt', 'expiresAt'])
    .executeTakeFirst();
  if (row === undefined) return null;
  return {
    ...row,
    realm: row.realm as OidcRealm,
    kiosk: bool(row.kiosk),
    createdAt: Number(row.createdAt),
    expiresAt: Number(row.expiresAt),
  };
}

/** Forgets flows and sign-out URLs whose time is over (the session sweeper, on any replica). */
export async function pruneOidcState(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('oidcFlows').where('expiresAt', '<=', now).execute();
  await db.deleteFrom('oidcSignOuts').where('expiresAt', '<=', now).execute();
}
