import { verify } from 'node:crypto';
import type { Kysely } from 'kysely';
import { agentSealingKeyPayload, type AgentSealingKey } from '@postern/protocol';
import { parseSealingPublicKey } from '@postern/protocol/sealing';
import type { HubContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { resealBackendSecrets } from '../backends/backend-secrets.js';
import { toBackendRow } from '../backends/backends.repo.js';
import { resealEnvVars } from '../knocs/knoc-config.js';
import { toKnocRow, updateKnocRow } from '../knocs/knocs.repo.js';
import { agentKeyFingerprint, parseAgentPublicKey } from './agent-key.js';

/** Why a sealing key was refused (sent in the goodbye and audited, like the key refusals). */
export const SealingKeyRefusals = {
  badSealingKey: 'the agent sealing key is not an X25519 key signed by the agent key',
  sealingKeyMismatch:
    "this agent's sealing key is not the one registered for its token: an admin must rotate the token (secrets sealed to the old key must then be re-entered)",
} as const;

/** What the agent row says about its sealing key. */
export interface SealingKeyHolder {
  id: string;
  name: string;
  sealingKey: string | null;
}

/** Accepted (with the fingerprint of a key registered just now, for the audit entry) or refused. */
export type SealingKeyOutcome = { ok: true; registered: string | null } | { ok: false; refusal: string };

/**
 * Decides on the sealing key an admitted agent's hello carries, inside the admission transaction.
 * It must be an X25519 key signed by the agent's (already verified) identity key. The first one is
 * registered (the caller audits it), and every secret of the agent's backends and knocs still sealed with the
 * server key is re-sealed to it (and the server-key copy dropped); a different one later is refused
 * until the token is rotated (which drops the registered key). No key (an agent older than sealing)
 * changes nothing: such an agent cannot be given new secrets.
 */
export async function decideSealingKey(
  ctx: HubContext,
  trx: Kysely<Database>,
  agent: SealingKeyHolder,
  identityPublicKey: string,
  offered: AgentSealingKey | undefined,
): Promise<SealingKeyOutcome> {
  if (offered === undefined) return { ok: true, registered: null };
  // The registered key again (every reconnection): its signature was checked when it was registered,
  // by this same identity key (a new identity key needs a token rotation, which drops both), so the
  // check is not repeated for each of a fleet's thousands of reconnections.
  if (agent.sealingKey === offered.publicKey) return { ok: true, registered: null };
  if (!sealingKeySigned(identityPublicKey, offered)) return { ok: false, refusal: SealingKeyRefusals.badSealingKey };
  if (agent.sealingKey !== null) return { ok: false, refusal: SealingKeyRefusals.sealingKeyMismatch };
  const now = ctx.clock.now();
  const result = await trx
    .updateTable('agents')
    .set({ sealingKey: offered.publicKey, sealingKeyRegisteredAt: now })
    .where('id', '=', agent.id)
    .where('sealingKey', 'is', null)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) {
    // Another connection registered one meanwhile: this one must be the same key.
    const row = await trx.selectFrom('agents').select('sealingKey').where('id', '=', agent.id).executeTakeFirst();
    return row?.sealingKey === offered.publicKey
      ? { ok: true, registered: null }
      : { ok: false, refusal: SealingKeyRefusals.sealingKeyMismatch };
  }
  await resealLegacySecrets(ctx, trx, agent.id, offered.publicKey);
  return { ok: true, registered: agentKeyFingerprint(offered.publicKey) };
}

function sealingKeySigned(identityPublicKey: string, offered: AgentSealingKey): boolean {
  const identity = parseAgentPublicKey(identityPublicKey);
  if (identity === null || parseSealingPublicKey(offered.publicKey) === null) return false;
  try {
    return verify(
      null,
      Buffer.from(agentSealingKeyPayload(identityPublicKey, offered.publicKey), 'utf8'),
      identity,
      Buffer.from(offered.signature, 'base64url'),
    );
  } catch {
    return false;
  }
}

/**
 * Re-seals the secrets of the agent's backends and their knocs that are still sealed with the
 * server key (stored before sealing to agents) to the agent's key, replacing the server-key copy:
 * from here on no server key opens them. Values the server key cannot open are left for an admin
 * to re-enter (sending them is reported).
 */
export async function resealLegacySecrets(
  ctx: Pick<HubContext, 'secrets'>,
  db: Kysely<Database>,
  agentId: string,
  sealingKey: string,
): Promise<void> {
  const backends = await db.selectFrom('backends').selectAll().where('agentId', '=', agentId).execute();
  for (const row of backends) {
    let backend;
    try {
      backend = toBackendRow(row);
    } catch {
      continue;
    }
    const config = resealBackendSecrets(ctx.secrets, backend.type, backend.config, backend.id, sealingKey);
    if (config !== null) {
      await db
        .updateTable('backends')
        .set({ config: JSON.stringify(config) })
        .where('id', '=', backend.id)
        .execute();
    }
  }
  if (backends.length === 0) return;
  const knocs = await db
    .selectFrom('knocs')
    .selectAll()
    .where(
      'backendId',
      'in',
      backends.map((backend) => backend.id),
    )
    .execute();
  for (const row of knocs) {
    const knoc = toKnocRow(row);
    const config = resealEnvVars(ctx.secrets, knoc.id, knoc.config, sealingKey);
    if (config !== null) await updateKnocRow(db, { ...knoc, config });
  }
}
