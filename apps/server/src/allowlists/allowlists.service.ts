import { createHash, timingSafeEqual } from 'node:crypto';
import {
  addressInAnyCidr,
  AuditActions,
  GrantStatus,
  type AllowlistRecord,
  type ApiKeyRecord,
  type AuditDetail,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { recordAudit } from '../audit/audit.js';
import { NotFoundError, type ApiError } from '../errors.js';
import { touchApiKey } from '../apikeys/apikeys.repo.js';
import {
  basicChallenge,
  checkCredentials,
  countFailure,
  readCredentials,
  refuseIfThrottled,
  refusalError,
} from '../apikeys/api-key-auth.js';
import { etagMatches } from '../http/etag.js';
import { allowlistEtag, publishedLines, type AllowlistFormat } from './allowlist-format.js';
import { findAllowlistKnoc, grantedAddresses, type AllowlistKnoc } from './allowlists.repo.js';
import { RefusalAuditGate } from './refusal-audit-gate.js';
import { throttleSubject } from '../auth/throttle.js';

/** The realm of the Basic challenge on allowlist files. */
const ALLOWLIST_REALM = 'postern-allowlist';

/** What the audit shows as the means of a read that needed no key. */
const BY_ADDRESS = 'AllowAccessByIp';

export interface AllowlistRequest {
  aclId: string;
  token: string;
  format: AllowlistFormat;
  /** The caller's address (clientAddress of the request). */
  address: string;
  authorization: string | undefined;
  ifNoneMatch: string | undefined;
}

/** A served list: the document, its tag, and whether the caller already has it (304). */
export interface AllowlistAnswer {
  etag: string;
  notModified: boolean;
  document: AllowlistRecord;
  generatedAt: number;
}

/**
 * Serves published allowlists (DESIGN.md, "Allowlist backends"). One instance per app: it holds the
 * gate that keeps refusals from flooding the audit log.
 */
export class AllowlistPublisher {
  readonly #refusals = new RefusalAuditGate();

  constructor(private readonly ctx: AppContext) {}

  /**
   * The rules, in order: a throttled address gets 429; an unknown knoc, a knoc that is not an
   * allowlist and a wrong token all get the same 404; then a key with `allowlist.read:{aclId}`
   * (AllowedFrom enforced) or, when the knoc allows it, an address inside AllowedIpAddresses. A good
   * key used from outside its AllowedFrom gets 403 unless the address alone is enough. Every read is
   * audited and records the key's use; refusals are counted by the throttle and audited through the
   * gate, except a bare request without credentials, which gets the Basic challenge and nothing else.
   */
  async read(request: AllowlistRequest): Promise<AllowlistAnswer> {
    const { ctx } = this;
    await refuseIfThrottled(ctx, request.address);
    const knoc = await findAllowlistKnoc(ctx.db, request.aclId);
    if (knoc === null || !tokensEqual(request.token, knoc.config.Token)) {
      // The caller learns nothing about which; the audit names the knoc when there is one.
      throw await this.#refuse(request, knoc, 'unknown allowlist or wrong token', new NotFoundError());
    }

    const credentials = readCredentials(request.authorization);
    const check =
      credentials.kind === 'none'
        ? null
        : await checkCredentials(ctx, credentials, request.address, `allowlist.read:${knoc.id}`);
    if (check?.ok === true) return this.#serve(request, knoc, check.key);
    if (knoc.config.AllowAccessByIp && addressInAnyCidr(request.address, knoc.config.AllowedIpAddresses)) {
      return this.#serve(request, knoc, null);
    }
    if (check === null) throw basicChallenge(ALLOWLIST_REALM);
    throw await this.#refuse(request, knoc, check.reason, refusalError(check, ALLOWLIST_REALM), check.key);
  }

  async #serve(request: AllowlistRequest, knoc: AllowlistKnoc, key: ApiKeyRecord | null): Promise<AllowlistAnswer> {
    const { ctx } = this;
    const now = ctx.clock.now();
    const lines = publishedLines(await grantedAddresses(ctx.db, knoc.id, now));
    const etag = allowlistEtag(request.format, knoc.id, knoc.description, lines);
    await ctx.db.transaction().execute(async (trx) => {
      if (key !== null) await touchApiKey(trx, key.ID, now);
      await recordAudit(trx, now, AuditActions.AllowlistRead, {
        AclDescription: knoc.description,
        IpAddress: request.address,
        Description: key?.Name ?? BY_ADDRESS,
      });
      // The firewall has now fetched what was published: those grants are Read (5).
      await trx
        .updateTable('grants')
        .set({ status: GrantStatus.Read, updatedAt: now })
        .where('aclId', '=', knoc.id)
        .where('status', '=', GrantStatus.Published)
        .where('endedAt', 'is', null)
        .where('createdAt', '<=', now)
        .execute();
    });
    // Labelled by the knoc's name, which admins keep bounded: the "when did the firewall last fetch" board.
    ctx.metrics.allowlistFetched(knoc.description, 'served', now);
    return {
      etag,
      notModified: etagMatches(request.ifNoneMatch, etag),
      generatedAt: now,
      document: {
        ACLID: knoc.id,
        Description: knoc.description,
        Generated: new Date(now).toISOString(),
        Addresses: lines,
      },
    };
  }

  /** Counts the failure against the address, audits it when the gate admits it, returns the error. */
  async #refuse(
    request: AllowlistRequest,
    knoc: AllowlistKnoc | null,
    reason: string,
    error: ApiError,
    key?: ApiKeyRecord,
  ): Promise<ApiError> {
    const { ctx } = this;
    const now = ctx.clock.now();
    await countFailure(ctx, request.address);
    // Only for a knoc that exists: a label from a made-up id in the URL would be unbounded.
    if (knoc !== null) ctx.metrics.allowlistFetched(knoc.description, 'refused', now);
    // Gated per throttle subject (an IPv6 /64 as one), so stepping through a /64 floods nothing.
    if (this.#refusals.admit(throttleSubject(request.address), now)) {
      const detail: AuditDetail = { IpAddress: request.address, ErrorMessage: reason };
      if (knoc !== null) detail.AclDescription = knoc.description;
      if (key !== undefined) detail.Description = key.Name;
      await recordAudit(ctx.db, now, AuditActions.AllowlistReadRefused, detail);
    }
    return error;
  }
}

/**
 * Compares the presented token with the knoc's in constant time (over their SHA-256, so lengths do
 * not show either). A knoc without a token publishes nothing.
 */
function tokensEqual(presented: string, expected: string): boolean {
  if (expected === '') return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
