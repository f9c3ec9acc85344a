import type { Kysely, Selectable } from 'kysely';
import type { Passkey as PasskeyRecord } from '@postern/protocol';
import type { Database, PasskeysTable } from '../store/schema.js';
import { bool, isoOrNull } from '../lib/rows.js';

/** Whose passkeys: users' or administrators' (the two realms never share one). */
export type PasskeyRealm = 'user' | 'admin';

/** A registered passkey as the server uses it. */
export interface StoredPasskey {
  id: string;
  realm: PasskeyRealm;
  accountId: string;
  /** base64url. */
  credentialId: string;
  /** The COSE public key. */
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
  name: string;
  rpId: string;
  backedUp: boolean;
  discoverable: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

function fromRow(row: Selectable<PasskeysTable>): StoredPasskey {
  return {
    id: row.id,
    realm: row.realm === 'admin' ? 'admin' : 'user',
    accountId: row.accountId,
    credentialId: row.credentialId,
    publicKey: Uint8Array.from(Buffer.from(row.publicKey, 'base64url')),
    counter: Number(row.counter),
    transports: parseTransports(row.transports),
    name: row.name,
    rpId: row.rpId,
    backedUp: bool(row.backedUp),
    discoverable: bool(row.discoverable),
    createdAt: Number(row.createdAt),
    lastUsedAt: row.lastUsedAt === null ? null : Number(row.lastUsedAt),
  };
}

/** The stored transports; a value that is not a list of names is none (they are only a hint). */
function parseTransports(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** A passkey as its owner and the console see it. */
export function passkeyRecord(passkey: StoredPasskey): PasskeyRecord {
  return {
    ID: passkey.id,
    Name: passkey.name,
    CreatedAt: new Date(passkey.createdAt).toISOString(),
    LastUsedAt: isoOrNull(passkey.lastUsedAt),
    BackedUp: passkey.backedUp,
    Discoverable: passkey.discoverable,
  };
}

/** An account's passkeys, oldest first. */
export async function passkeysOf(
  db: Kysely<Database>,
  realm: PasskeyRealm,
  accountId: string,
): Promise<StoredPasskey[]> {
  const rows = await db
    .selectFrom('passkeys')
    .selectAll()
    .where('realm', '=', realm)
    .where('accountId', '=', accountId)
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
  return rows.map(fromRow);
}

export async function countPasskeys(db: Kysely<Database>, realm: PasskeyRealm, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('passkeys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('realm', '=', realm)
    .where('accountId', '=', accountId)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** The passkey of a realm with this credential ID (as the authenticator names it), or null. */
export async function findPasskeyByCredentialId(
  db: Kysely<Database>,
  realm: PasskeyRealm,
  credentialId: string,
): Promise<StoredPasskey | null> {
  const row = await db
    .selectFrom('passkeys')
    .selectAll()
    .where('realm', '=', realm)
    .where('credentialId', '=', credentialId)
    .executeTakeFirst();
  return row === undefined ? null : fromRow(row);
}

/** One of an account's passkeys by its ID, or null (another account's is not found either). */
export async function findPasskeyOf(
  db: Kysely<Database>,
  realm: PasskeyRealm,
  accountId: string,
  id: string,
): Promise<StoredPasskey | null> {
  const row = await db
    .selectFrom('passkeys')
    .selectAll()
    .where('realm', '=', realm)
    .where('accountId', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined ? null : fromRow(row);
}

export async function insertPasskey(db: Kysely<Database>, passkey: StoredPasskey): Promise<void> {
  await db
    .insertInto('passkeys')
    .values({
      ...passkey,
      publicKey: Buffer.from(passkey.publicKey).toString('base64url'),
      transports: JSON.stringify(passkey.transports),
    })
    .execute();
}

/**
 * Records a use: the new counter and backup state, and when. Only while the stored counter is still
 * the one the check was made against, so two answers racing on replicas cannot both move it; false
 * when another got there first.
 */
export async function recordPasskeyUse(
  db: Kysely<Database>,
  passkey: StoredPasskey,
  use: { counter: number; backedUp: boolean; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('passkeys')
    .set({ counter: use.counter, backedUp: use.backedUp, lastUsedAt: use.now })
    .where('id', '=', passkey.id)
    .where('counter', '=', passkey.counter)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function renamePasskey(db: Kysely<Database>, id: string, name: string): Promise<void> {
  await db.updateTable('passkeys').set({ name }).where('id', '=', id).execute();
}

export async function deletePasskey(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('passkeys').where('id', '=', id).execute();
}

/** Removes every passkey of an account; returns how many there were. */
export async function deletePasskeysOf(db: Kysely<Database>, realm: PasskeyRealm, accountId: string): Promise<number> {
  const result = await db
    .deleteFrom('passkeys')
    .where('realm', '=', realm)
    .where('accountId', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
