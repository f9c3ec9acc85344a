import type { Kysely } from 'kysely';
import {
  AgentCapabilities,
  ErrorCodes,
  agentIncapability,
  agentVersionCompatible,
  minimumAgentVersion,
  type BackendType,
} from '@postern/protocol';
import type { Database } from '../store/schema.js';
import { BadRequestError } from '../errors.js';

/** What the backend and knoc rules need to know about an agent. */
export interface AgentFacts {
  id: string;
  name: string;
  /** The version from the agent's last hello; null when unknown (counts as compatible). */
  version: string | null;
  /** The capabilities from the agent's last hello; null when it never connected (or sent nonsense). */
  capabilities: AgentCapabilities | null;
  /** The key secrets for this agent are sealed to; null until it registers one. */
  sealingKey: string | null;
}

/** The agents among these ids, by id. */
async function findAgentFacts(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, AgentFacts>> {
  const found = new Map<string, AgentFacts>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return found;
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'name', 'version', 'capabilities', 'sealingKey'])
    .where('id', 'in', wanted)
    .execute();
  for (const row of rows) {
    found.set(row.id, {
      id: row.id,
      name: row.name,
      version: row.version,
      capabilities: parseCapabilities(row.capabilities),
      sealingKey: row.sealingKey,
    });
  }
  return found;
}

export async function findAgentFactsById(db: Kysely<Database>, id: string): Promise<AgentFacts | null> {
  return (await findAgentFacts(db, [id])).get(id) ?? null;
}

function parseCapabilities(text: string | null): AgentCapabilities | null {
  if (text === null) return null;
  try {
    const parsed = AgentCapabilities.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Refuses an agent that cannot drive the type: 400 err.agentIncapable with the reason as Extra, or
 * 400 err.agentVersionTooOld (Extra: the minimum) when its version is below the type's minimum.
 */
export function assertAgentCanRun(agent: AgentFacts, type: BackendType): void {
  const reason = agentIncapability(agent.capabilities, type);
  if (reason !== null) throw new BadRequestError({ code: ErrorCodes.agentIncapable, extra: reason });
  if (!agentVersionCompatible(agent.version, type)) {
    throw new BadRequestError({ code: ErrorCodes.agentVersionTooOld, extra: minimumAgentVersion(type) });
  }
}

/** Which address family each ipset knoc field names a set of. */
const SET_FIELDS = [
  ['V4SetName', 'inet'],
  ['V6SetName', 'inet6'],
] as const;

/**
 * Refuses an ipset knoc whose set names the agent did not report (its configuration allows only
 * those), or reported for the other address family: 400 err.ipsetNotAllowed, Extra the set's name.
 */
export function assertIpsetSetsAllowed(agent: AgentFacts, fields: Record<string, unknown>): void {
  const sets = agent.capabilities?.ipset.ipsets ?? [];
  for (const [field, family] of SET_FIELDS) {
    const name = fields[field];
    if (typeof name !== 'string' || name === '') continue;
    if (!sets.some((set) => set.name === name && set.address_family === family)) {
      throw new BadRequestError({ code: ErrorCodes.ipsetNotAllowed, extra: name });
    }
  }
}

/** Which element type each nftables knoc field names a set of. */
const NFTABLES_SET_FIELDS = [
  ['V4SetName', 'ipv4_addr'],
  ['V6SetName', 'ipv6_addr'],
] as const;

/**
 * Refuses an nftables knoc whose sets the agent did not report in the backend's family and table
 * (its configuration allows only those), reported for the other element type, or without `flags
 * timeout` (an element without a timeout would outlive its grant whenever no Postern process is
 * alive to remove it): 400 err.nftablesSetNotAllowed, Extra the set's name.
 */
export function assertNftablesSetsAllowed(
  agent: AgentFacts,
  backendFields: Record<string, unknown>,
  fields: Record<string, unknown>,
): void {
  const family = typeof backendFields.Family === 'string' ? backendFields.Family : 'inet';
  const table = backendFields.Table;
  const sets = agent.capabilities?.nftables?.sets ?? [];
  for (const [field, type] of NFTABLES_SET_FIELDS) {
    const name = fields[field];
    if (typeof name !== 'string' || name === '') continue;
    const found = sets.some(
      (set) => set.family === family && set.table === table && set.name === name && set.type === type && set.timeout,
    );
    if (!found) throw new BadRequestError({ code: ErrorCodes.nftablesSetNotAllowed, extra: name });
  }
}
