import type { Kysely } from 'kysely';
import type { AgentKnoc, BackendType, DesiredEntry, EntryKey } from '@postern/protocol';
import { BACKEND_SECRET_FIELDS, BackendType as BackendTypeSchema } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';

/**
 * What an agent must hold, read from the store. The store is the desired state: a running grant
 * (not ended, not expired) on a knoc whose backend the agent drives is an entry the device must
 * have; nothing else is.
 */

const CHUNK = 500;

/** Seconds left until `expiresAt`, at least 1 (an entry about to expire is still sent as live). */
function ttlSeconds(expiresAt: number, now: number): number {
  return Math.max(1, Math.ceil((expiresAt - now) / 1000));
}

interface EntryRow {
  aclId: string;
  ip: string;
  expiresAt: number;
  userName: string;
  createdAt: number;
}

/** Folds running grants into one entry per (knoc, address): the latest expiry, the first user. */
function foldEntries(rows: readonly EntryRow[], now: number): DesiredEntry[] {
  const byKey = new Map<string, EntryRow>();
  const firstUser = new Map<string, EntryRow>();
  for (const row of rows) {
    const key = `${row.aclId} ${row.ip}`;
    const held = byKey.get(key);
    if (held === undefined || row.expiresAt > held.expiresAt) byKey.set(key, row);
    const first = firstUser.get(key);
    if (first === undefined || row.createdAt < first.createdAt) firstUser.set(key, row);
  }
  return [...byKey.entries()].map(([key, row]) => ({
    aclId: row.aclId,
    ip: row.ip,
    ttlSeconds: ttlSeconds(row.expiresAt, now),
    userName: firstUser.get(key)?.userName ?? row.userName,
  }));
}

function runningGrantsOfAgent(db: Kysely<Database>, agentId: string, now: number) {
  return db
    .selectFrom('grants')
    .innerJoin('knocs', 'knocs.id', 'grants.aclId')
    .innerJoin('backends', 'backends.id', 'knocs.backendId')
    .select(['grants.aclId', 'grants.ip', 'grants.expiresAt', 'grants.userName', 'grants.createdAt'])
    .where('backends.agentId', '=', agentId)
    .where('grants.endedAt', 'is', null)
    .where('grants.expiresAt', '>', now);
}

/** Every entry the agent must hold now. */
export async function desiredEntries(db: Kysely<Database>, agentId: string, now: number): Promise<DesiredEntry[]> {
  return foldEntries(await runningGrantsOfAgent(db, agentId, now).execute(), now);
}

/**
 * The state of some entries: those still held by a running grant with their ttl (`add`), the rest
 * absent (`remove`).
 */
export async function desiredForKeys(
  db: Kysely<Database>,
  agentId: string,
  keys: readonly EntryKey[],
  now: number,
): Promise<{ add: DesiredEntry[]; remove: EntryKey[] }> {
  const byAcl = new Map<string, Set<string>>();
  for (const key of keys) byAcl.set(key.aclId, (byAcl.get(key.aclId) ?? new Set()).add(key.ip));
  const rows: EntryRow[] = [];
  for (const [aclId, ips] of byAcl) {
    const list = [...ips];
    for (let i = 0; i < list.length; i += CHUNK) {
      rows.push(
        ...(await runningGrantsOfAgent(db, agentId, now)
          .where('grants.aclId', '=', aclId)
          .where('grants.ip', 'in', list.slice(i, i + CHUNK))
          .execute()),
      );
    }
  }
  const add = foldEntries(rows, now);
  const held = new Set(add.map((entry) => `${entry.aclId} ${entry.ip}`));
  const remove: EntryKey[] = [];
  for (const [aclId, ips] of byAcl) {
    for (const ip of ips) if (!held.has(`${aclId} ${ip}`)) remove.push({ aclId, ip });
  }
  return { add, remove };
}

/** Opens a backend's stored config: secret fields are sealed per field (backends/… writes them). */
function openBackendConfig(ctx: AppContext, backendId: string, type: BackendType, fields: Record<string, unknown>) {
  const opened: Record<string, unknown> = { ...fields };
  for (const field of BACKEND_SECRET_FIELDS[type]) {
    const sealed = fields[field];
    if (typeof sealed === 'string' && sealed !== '') {
      opened[field] = ctx.secrets.open(sealed, { table: 'backends', column: `config.${field}`, rowId: backendId });
    }
  }
  return opened;
}

/** Opens a knoc's sensitive script variables. */
function openAclConfig(ctx: AppContext, aclId: string, fields: Record<string, unknown>) {
  const envVars = fields.EnvVars;
  if (!Array.isArray(envVars)) return fields;
  return {
    ...fields,
    EnvVars: envVars.map((raw: unknown) => {
      const envVar = raw as { Name: string; Value: string; Sensitive?: boolean; Encrypted?: boolean };
      if (envVar.Encrypted !== true || envVar.Value === '') return envVar;
      const value = ctx.secrets.open(envVar.Value, {
        table: 'knocs',
        column: `config.EnvVars.${envVar.Name}`,
        rowId: aclId,
      });
      return { ...envVar, Value: value, Encrypted: false };
    }),
  };
}

function onlyKey(json: string): [string, Record<string, unknown>] | null {
  const parsed = JSON.parse(json) as Record<string, unknown>;
  const key = Object.keys(parsed).find((name) => name !== 'UriToken');
  if (key === undefined) return null;
  const value = parsed[key];
  return [key, value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {}];
}

/** The knocs the agent enforces, with their backend and knoc configs opened for the driver. */
export async function agentKnocs(ctx: AppContext, db: Kysely<Database>, agentId: string): Promise<AgentKnoc[]> {
  const rows = await db
    .selectFrom('knocs')
    .innerJoin('backends', 'backends.id', 'knocs.backendId')
    .select([
      'knocs.id as aclId',
      'knocs.description',
      'knocs.url',
      'knocs.config as aclConfig',
      'backends.id as backendId',
      'backends.type',
      'backends.config as backendConfig',
    ])
    .where('backends.agentId', '=', agentId)
    .execute();
  const knocs: AgentKnoc[] = [];
  for (const row of rows) {
    const type = BackendTypeSchema.safeParse(row.type);
    if (!type.success) continue;
    try {
      const backend = onlyKey(row.backendConfig);
      const acl = onlyKey(row.aclConfig);
      knocs.push({
        aclId: row.aclId,
        name: row.description,
        url: row.url,
        backendId: row.backendId,
        backendType: type.data,
        backend: openBackendConfig(ctx, row.backendId, type.data, backend?.[1] ?? {}),
        acl: openAclConfig(ctx, row.aclId, acl?.[1] ?? {}),
      });
    } catch (error) {
      // One unreadable knoc (a secret sealed with a lost key) must not stop the others.
      ctx.logger.error({ err: error, aclId: row.aclId }, 'cannot send a knoc to its agent');
    }
  }
  return knocs;
}
