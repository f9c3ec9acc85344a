import type { Kysely, Selectable } from 'kysely';
import { BackendType } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { BackendsTable, Database } from '../store/schema.js';
import { backendSecretsForAgent, type StoredBackendFields } from './backend-secrets.js';

/** A backend as the services use it; `config` is the stored fields, secrets still sealed. */
export interface BackendRow {
  id: string;
  name: string;
  agentId: string | null;
  type: BackendType;
  config: StoredBackendFields;
  createdAt: number;
  updatedAt: number;
  lastModifiedBy: string;
}

/** A backend with its agent's name (empty when it has none). */
export interface BackendWithAgent extends BackendRow {
  agentName: string;
}

function selectWithAgent(db: Kysely<Database>) {
  return db
    .selectFrom('backends')
    .leftJoin('agents', 'agents.id', 'backends.agentId')
    .selectAll('backends')
    .select('agents.name as agentName');
}

export async function listBackendRows(db: Kysely<Database>): Promise<BackendWithAgent[]> {
  const rows = await selectWithAgent(db).orderBy('backends.name').orderBy('backends.id').execute();
  return rows.map((row) => ({ ...toBackendRow(row), agentName: row.agentName ?? '' }));
}

export async function findBackendRow(db: Kysely<Database>, id: string): Promise<BackendWithAgent | null> {
  const row = await selectWithAgent(db).where('backends.id', '=', id).executeTakeFirst();
  return row === undefined ? null : { ...toBackendRow(row), agentName: row.agentName ?? '' };
}

export async function countBackends(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('backends')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** True when another backend (not `exceptId`) has this name. */
export async function backendNameTaken(db: Kysely<Database>, name: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('backends').select('id').where('name', '=', name);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertBackendRow(db: Kysely<Database>, row: BackendRow): Promise<void> {
  await db
    .insertInto('backends')
    .values({ ...row, config: JSON.stringify(row.config) })
    .execute();
}

export async function updateBackendRow(
  db: Kysely<Database>,
  id: string,
  fields: Pick<BackendRow, 'name' | 'agentId' | 'config' | 'updatedAt' | 'lastModifiedBy'>,
): Promise<void> {
  await db
    .updateTable('backends')
    .set({ ...fields, config: JSON.stringify(fields.config) })
    .where('id', '=', id)
    .execute();
}

/** Deletes the backend; its knocs (and their children, grants and memberships) go by cascade. */
export async function deleteBackendRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('backends').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * The backend's fields for the agent hub to send to the agent that drives it, whose sealing key is
 * `sealingKey`: its secrets sealed to that key (only the agent opens them). Never for an API answer.
 */
export function loadBackendConfigForAgent(
  ctx: Pick<AppContext, 'secrets'>,
  backend: BackendRow,
  sealingKey: string | null,
): Record<string, unknown> {
  return backendSecretsForAgent(ctx.secrets, backend.type, backend.config, backend.id, sealingKey);
}

/** A backends table row as the services use it. */
export function toBackendRow(row: Selectable<BackendsTable>): BackendRow {
  return {
    id: row.id,
    name: row.name,
    agentId: row.agentId,
    // The type was validated when written; an unknown one cannot come from this code.
    type: BackendType.parse(row.type),
    config: parseFields(row.config),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    lastModifiedBy: row.lastModifiedBy,
  };
}

function parseFields(text: string): StoredBackendFields {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as StoredBackendFields)
      : {};
  } catch {
    return {};
  }
}
