import type { Kysely } from 'kysely';
import { AuditActions, type WizardApiKey } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError } from '../errors.js';
import { createApiKey } from '../apikeys/apikeys.service.js';
import { findApiKeyRow } from '../apikeys/apikeys.repo.js';
import type { AuditActor } from '../audit/actor.js';

/** The scope that lets a key read one knoc's allowlist. */
function allowlistScope(aclId: string): string {
  return `allowlist.read:${aclId}`;
}

/** A key the wizard created: its plaintext lives in the wizard's answer and nowhere else. */
export interface WizardCreatedKey {
  ID: string;
  Name: string;
  PlaintextKey: string;
}

/**
 * Gives the allowlist knoc `aclId` its key, inside the wizard's transaction: `new` creates a key
 * scoped `allowlist.read:{aclId}` (audited ApiKeyCreated); `existing` adds that scope to the key
 * (audited ApiKeyUpdated; 400 when the key is unknown). Returns the key's id ('' for none) and the
 * created key.
 */
export async function attachWizardApiKey(
  trx: Kysely<Database>,
  ctx: AppContext,
  choice: WizardApiKey,
  aclId: string,
  actor: AuditActor,
): Promise<{ apiKeyId: string; created: WizardCreatedKey | null }> {
  if (choice.Option === 'none') return { apiKeyId: '', created: null };
  if (choice.Option === 'new') {
    const { record, plaintext } = await createApiKey(
      trx,
      ctx,
      {
        Name: choice.Name,
        Scopes: [allowlistScope(aclId)],
        AllowedFrom: choice.AllowedFrom,
        ExpiredAfter: choice.ExpiredAfter,
      },
      actor,
    );
    return { apiKeyId: record.ID, created: { ID: record.ID, Name: record.Name, PlaintextKey: plaintext } };
  }
  const key = await findApiKeyRow(trx, choice.ID);
  if (key === null) throw new BadRequestError({ extra: 'ApiKey.ID: unknown API key' });
  const scopes = [...new Set([...key.scopes, allowlistScope(aclId)])];
  await trx
    .updateTable('apiKeys')
    .set({ scopes: JSON.stringify(scopes) })
    .where('id', '=', key.id)
    .execute();
  await recordAudit(trx, ctx.clock.now(), AuditActions.ApiKeyUpdated, { ...actor, Description: key.name });
  return { apiKeyId: key.id, created: null };
}
