import type { Kysely } from 'kysely';
import {
  AgentCapabilities,
  ErrorCodes,
  minimumAgentVersion,
  type BackendType,
  type ErrorCode,
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
}

/** The agents among these ids, by id. */
async function findAgentFacts(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, AgentFacts>> {
  const found = new Map<string, AgentFacts>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return found;
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'name', 'version', 'capabilities'])
    .where('id', 'in', wanted)
    .execute();
  for (const row of rows) {
    found.set(row.id, {
      id: row.id,
      name: row.name,
      version: row.version,
      capabilities: parseCapabilities(row.capabilities),
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
 * Why this agent cannot drive a backend of this type, as an error code for Extra (the spec's
 * eligibility reasons), or null when it can. Capabilities come from the agent's last hello.
 */
function incapabilityReason(agent: AgentFacts, type: BackendType): ErrorCode | null {
  const capabilities = agent.capabilities;
  if (capabilities === null) return ErrorCodes.agentNeverConnected;
  if (!capabilities.backend_types.includes(type)) return ErrorCodes.agentBackendTypeNotSupported;
  if (type === 'ipset') {
    if (!capabilities.ipset.command_available) return ErrorCodes.ipsetNoCommand;
    if (!capabilities.ipset.sudo_enabled) return ErrorCodes.ipsetNoSudo;
  }
  if (type === 'script' && !capabilities.script.enabled) return ErrorCodes.agentScriptsDisabled;
  return null;
}

/**
 * Refuses an agent that cannot drive the type: 400 err.agentIncapable with the reason as Extra, or
 * 400 err.agentVersionTooOld (Extra: the minimum) when its version is below the type's minimum.
 */
export function assertAgentCanRun(agent: AgentFacts, type: BackendType): void {
  const reason = incapabilityReason(agent, type);
  if (reason !== null) throw new BadRequestError({ code: ErrorCodes.agentIncapable, extra: reason });
  const minimum = minimumAgentVersion(type);
  if (agent.version !== null && !versionAtLeast(agent.version, minimum)) {
    throw new BadRequestError({ code: ErrorCodes.agentVersionTooOld, extra: minimum });
  }
}

/**
 * Semantic version comparison on major.minor.patch (a leading "v" and any pre-release or build
 * suffix are ignored, missing parts count as 0). A version that does not parse counts as compatible,
 * as an unknown version does: the agent itself refuses what it cannot do.
 */
function versionAtLeast(version: string, minimum: string): boolean {
  const have = parseVersion(version);
  const need = parseVersion(minimum);
  if (have === null || need === null) return true;
  for (let i = 0; i < 3; i += 1) {
    const a = have[i] ?? 0;
    const b = need[i] ?? 0;
    if (a !== b) return a > b;
  }
  return true;
}

function parseVersion(text: string): number[] | null {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?$/.exec(text.trim());
  if (match === null) return null;
  return [match[1], match[2], match[3]].map((part) => (part === undefined ? 0 : Number(part)));
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
