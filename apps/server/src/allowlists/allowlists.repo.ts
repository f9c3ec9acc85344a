import type { Kysely } from 'kysely';
import { ACL_CONFIG_SCHEMAS } from '@postern/protocol';
import type { z } from 'zod';
import type { Database } from '../store/schema.js';

/** The allowlist fields of a knoc's config: Token, ApiKeyId, AllowAccessByIp, AllowedIpAddresses. */
export type AllowlistConfig = z.output<(typeof ACL_CONFIG_SCHEMAS)['allowlist']>;

/** A knoc that publishes an allowlist. */
export interface AllowlistKnoc {
  id: string;
  description: string;
  config: AllowlistConfig;
}

/**
 * The knoc if it publishes an allowlist: its backend is of type allowlist and its config carries the
 * allowlist fields. Anything else (no knoc, another backend type, an unreadable config) is null.
 */
export async function findAllowlistKnoc(db: Kysely<Database>, aclId: string): Promise<AllowlistKnoc | null> {
  const row = await db
    .selectFrom('knocs')
    .innerJoin('backends', 'backends.id', 'knocs.backendId')
    .select(['knocs.id', 'knocs.description', 'knocs.config', 'backends.type'])
    .where('knocs.id', '=', aclId)
    .executeTakeFirst();
  if (row?.type !== 'allowlist') return null;
  const config = allowlistConfigOf(row.config);
  return config === null ? null : { id: row.id, description: row.description, config };
}

function allowlistConfigOf(text: string): AllowlistConfig | null {
  try {
    const stored: unknown = JSON.parse(text);
    if (typeof stored !== 'object' || stored === null || !('allowlist' in stored)) return null;
    const parsed = ACL_CONFIG_SCHEMAS.allowlist.safeParse(stored.allowlist);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The addresses of the knoc's running grants (not ended, not expired at `now`), each once. */
export async function grantedAddresses(db: Kysely<Database>, aclId: string, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom('grants')
    .select('ip')
    .distinct()
    .where('aclId', '=', aclId)
    .where('endedAt', 'is', null)
    .where('expiresAt', '>', now)
    .execute();
  return rows.map((row) => row.ip);
}
