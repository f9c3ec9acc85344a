import type { Kysely, Selectable } from 'kysely';
import { z } from 'zod';
import type { AllowedFromEntry } from '@postern/protocol';
import type { ApiKeysTable, Database } from '../store/schema.js';

/** An API key as the services use it; the key itself is never here, only its hash. */
export interface ApiKeyRow {
  id: string;
  name: string;
  keyHash: string;
  scopes: string[];
  allowedFrom: AllowedFromEntry[];
  expiresAt: number | null;
  createdAt: number;
  lastUsedAt: number | null;
}

const StoredScopes = z.array(z.string());
const StoredAllowedFrom = z.array(z.object({ Prefix: z.string(), Note: z.string() }));

export async function listApiKeyRows(db: Kysely<Database>): Promise<ApiKeyRow[]> {
  const rows = await db.selectFrom('apiKeys').selectAll().orderBy('name').execute();
  return rows.map(toRow);
}

export async function findApiKeyRow(db: Kysely<Database>, id: string): Promise<ApiKeyRow | null> {
  const row = await db.selectFrom('apiKeys').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : toRow(row);
}

export async function findApiKeyRowByHash(db: Kysely<Database>, keyHash: string): Promise<ApiKeyRow | null> {
  const row = await db.selectFrom('apiKeys').selectAll().where('keyHash', '=', keyHash).executeTakeFirst();
  return row === undefined ? null : toRow(row);
}

export async function apiKeyNameTaken(db: Kysely<Database>, name: string): Promise<boolean> {
  const row = await db.selectFrom('apiKeys').select('id').where('name', '=', name).executeTakeFirst();
  return row !== undefined;
}

export async function insertApiKeyRow(db: Kysely<Database>, key: ApiKeyRow): Promise<void> {
  await db
    .insertInto('apiKeys')
    .values({ ...key, scopes: JSON.stringify(key.scopes), allowedFrom: JSON.stringify(key.allowedFrom) })
    .execute();
}

export async function setApiKeyAllowedFrom(
  db: Kysely<Database>,
  id: string,
  allowedFrom: readonly AllowedFromEntry[],
): Promise<void> {
  await db
    .updateTable('apiKeys')
    .set({ allowedFrom: JSON.stringify(allowedFrom) })
    .where('id', '=', id)
    .execute();
}

/** True when the key existed. */
export async function deleteApiKeyRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('apiKeys').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Records a use; never moves the time backwards (replicas with slightly different clocks). */
export async function touchApiKey(db: Kysely<Database>, id: string, now: number): Promise<void> {
  await db
    .updateTable('apiKeys')
    .set({ lastUsedAt: now })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('lastUsedAt', 'is', null), eb('lastUsedAt', '<', now)]))
    .execute();
}

/** Unreadable JSON reads as an empty list, which grants nothing (no scope, no address). */
function toRow(row: Selectable<ApiKeysTable>): ApiKeyRow {
  return {
    id: row.id,
    name: row.name,
    keyHash: row.keyHash,
    scopes: parseJson(row.scopes, StoredScopes),
    allowedFrom: parseJson(row.allowedFrom, StoredAllowedFrom),
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
  };
}

function parseJson<T>(text: string, schema: z.ZodType<T[]>): T[] {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}
