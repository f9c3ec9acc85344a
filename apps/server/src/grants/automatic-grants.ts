import { AuditActions } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { ApiError } from '../errors.js';
import { knocsGrantedInSession } from './grants.repo.js';
import { childKnocs, type GrantableKnoc } from './knoc-access.js';
import { addressAllowed } from './ip-rules.js';
import { grantKnoc } from './grant-requests.service.js';
import type { GrantCaller } from './new-grants.js';

/**
 * Knocs without ClickToGrant are granted when the session starts (at its first status call). A knoc
 * the session has had a grant on is left alone: a revoke by the user must stay a revoke.
 */
export async function grantAutomaticKnocs(
  ctx: AppContext,
  caller: GrantCaller,
  knocs: readonly GrantableKnoc[],
  now: number,
): Promise<void> {
  const automatic = knocs.filter((knoc) => !knoc.clickToGrant && knoc.agentOnline);
  if (automatic.length === 0) return;
  const touched = await knocsGrantedInSession(
    ctx.db,
    caller.session.id,
    automatic.map((knoc) => knoc.id),
  );
  for (const knoc of automatic) {
    if (touched.has(knoc.id)) continue;
    if (knoc.grantType.Type === 'userIp' && !addressAllowed(knoc.ipExclusions, caller.address)) continue;
    try {
      const children = await childKnocs(ctx.db, knoc.id, now);
      ctx.agentSync.entriesChanged(await grantKnoc(ctx, knoc, children, caller, [], AuditActions.Grant, now));
    } catch (error) {
      // A knoc that refuses (no grantable address, say) must not break the status poll; the user sees its entry.
      if (!(error instanceof ApiError)) throw error;
    }
  }
}
