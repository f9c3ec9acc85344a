import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { WEBAUTHN_CEREMONY_MS } from '@postern/protocol';
import type { Database } from '../store/schema.js';
import type { PasskeyRealm } from './passkeys.repo.js';

/**
 * A WebAuthn challenge handed out and not yet answered. Kept in the store, not in the process, so
 * that whichever replica the answer reaches can check it (SCALE-OUT.md 5), and taken out by the
 * first attempt to answer it, whatever that attempt's outcome: a challenge is answered once.
 */
export type CeremonyPurpose = 'register' | 'second-factor' | 'passwordless';

export interface Ceremony {
  realm: PasskeyRealm;
  purpose: CeremonyPurpose;
  /** The session that asked (a pending sign-in, or a signed-in session adding a passkey). */
  sessionId: string | null;
  accountId: string | null;
  /** base64url, as the options carry it. */
  challenge: string;
  /** What the options promised: the answer must be for this RP ID, from this origin. */
  rpId: string;
  origin: string;
  expiresAt: number;
}

/** SHA-256, base64url: the store keeps a ceremony under its handle's hash, never the handle. */
function hashOf(handle: string): string {
  return createHash('sha256').update(handle, 'utf8').digest('base64url');
}

/** A new random challenge (32 bytes, base64url). */
export function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Keeps a ceremony and returns its handle. A session holds at most one ceremony of each purpose: a
 * new one replaces the one before (the browser asked again), so a session cannot pile them up.
 */
export async function saveCeremony(
  db: Kysely<Database>,
  ceremony: Omit<Ceremony, 'expiresAt'>,
  now: number,
): Promise<string> {
  const handle = randomBytes(32).toString('base64url');
  await db.transaction().execute(async (trx) => {
    if (ceremony.sessionId !== null) {
      await trx
        .deleteFrom('webauthnCeremonies')
        .where('realm', '=', ceremony.realm)
        .where('purpose', '=', ceremony.purpose)
        .where('sessionId', '=', ceremony.sessionId)
        .execute();
    }
    await trx
      .insertInto('webauthnCeremonies')
      .values({ id: hashOf(handle), ...ceremony, expiresAt: now + WEBAUTHN_CEREMONY_MS })
      .execute();
  });
  return handle;
}

type CeremonyRow = Awaited<ReturnType<typeof takeRow>>;

function takeRow(db: Kysely<Database>, where: CeremonyKey) {
  let query = db.deleteFrom('webauthnCeremonies').where('realm', '=', where.realm).where('purpose', '=', where.purpose);
  query =
    'handle' in where ? query.where('id', '=', hashOf(where.handle)) : query.where('sessionId', '=', where.sessionId);
  return query
    .returning(['realm', 'purpose', 'sessionId', 'accountId', 'challenge', 'rpId', 'origin', 'expiresAt'])
    .executeTakeFirst();
}

function fromRow(row: NonNullable<CeremonyRow>): Ceremony {
  return {
    realm: row.realm as PasskeyRealm,
    purpose: row.purpose as CeremonyPurpose,
    sessionId: row.sessionId,
    accountId: row.accountId,
    challenge: row.challenge,
    rpId: row.rpId,
    origin: row.origin,
    expiresAt: Number(row.expiresAt),
  };
}

/** Which ceremony an answer is for: a passwordless sign-in's by its handle (CeremonyID), the others by their session. */
export type CeremonyKey = { realm: PasskeyRealm; purpose: CeremonyPurpose } & (
  { handle: string } | { sessionId: string }
);

/**
 * Takes the ceremony out of the store: null when there is none, or it has expired (it is gone either
 * way). The DELETE decides, so of two answers racing on two replicas one gets the ceremony and the
 * other null.
 */
export async function takeCeremony(db: Kysely<Database>, key: CeremonyKey, now: number): Promise<Ceremony | null> {
  const row = await takeRow(db, key);
  return row === undefined || Number(row.expiresAt) <= now ? null : fromRow(row);
}

/** Forgets ceremonies whose time is over (the session sweeper, on any replica). */
export async function pruneCeremonies(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('webauthnCeremonies').where('expiresAt', '<=', now).execute();
}
