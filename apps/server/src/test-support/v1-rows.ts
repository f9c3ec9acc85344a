import { createHash, randomBytes } from 'node:crypto';
import { GrantStatus, type AllowedFromEntry } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { GrantOrigin } from '../store/schema.js';
import { uuidv7 } from '../lib/ids.js';
import { createApiKey } from '../apikeys/apikeys.service.js';

/**
 * Rows the /api/v1 tests need, written straight into the store (the knoc and grant factories belong
 * to the features that own those tables; these insert only what a reader of the tables relies on).
 */

const HOUR = 3_600_000;
let sequence = 0;

export interface AllowlistKnocOptions {
  description?: string;
  token?: string;
  allowAccessByIp?: boolean;
  allowedIpAddresses?: string[];
  /** The backend type; 'allowlist' unless a test wants another kind of knoc. */
  backendType?: string;
  /** The knoc's config column as stored; defaults to the allowlist fields above. */
  config?: object;
}

/** An allowlist backend and a knoc on it; returns the knoc's id, description and token. */
export async function givenAllowlistKnoc(
  ctx: AppContext,
  options: AllowlistKnocOptions = {},
): Promise<{ id: string; description: string; token: string }> {
  sequence += 1;
  const now = ctx.clock.now();
  const backendType = options.backendType ?? 'allowlist';
  const backendId = uuidv7(now);
  await ctx.db
    .insertInto('backends')
    .values({
      id: backendId,
      name: `backend ${sequence}`,
      agentId: null,
      type: backendType,
      config: JSON.stringify({ [backendType]: {} }),
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  const token = options.token ?? randomBytes(24).toString('base64url');
  const description = options.description ?? `Allowlist ${sequence}`;
  const id = uuidv7(now);
  const config = options.config ?? {
    allowlist: {
      Token: token,
      ApiKeyId: '',
      AllowAccessByIp: options.allowAccessByIp ?? false,
      AllowedIpAddresses: options.allowedIpAddresses ?? [],
    },
  };
  await ctx.db
    .insertInto('knocs')
    .values({ id, description, backendId, config: JSON.stringify(config), createdAt: now, updatedAt: now })
    .execute();
  return { id, description, token };
}

export interface GrantRowOptions {
  sessionId?: string | null;
  userName?: string;
  origin?: GrantOrigin;
  /** Default: an hour from now. */
  expiresAt?: number;
  endedAt?: number | null;
}

/** A grant of `ip` on the knoc, running unless the options say otherwise. */
export async function givenGrantRow(
  ctx: AppContext,
  aclId: string,
  ip: string,
  options: GrantRowOptions = {},
): Promise<string> {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const endedAt = options.endedAt ?? null;
  await ctx.db
    .insertInto('grants')
    .values({
      id,
      aclId,
      sessionId: options.sessionId ?? null,
      userId: null,
      userName: options.userName ?? 'someone',
      ip,
      origin: options.origin ?? 'user',
      status: endedAt === null ? GrantStatus.Published : GrantStatus.Revoked,
      createdAt: now,
      updatedAt: now,
      expiresAt: options.expiresAt ?? now + HOUR,
      endedAt,
      endReason: endedAt === null ? null : 'revoked',
    })
    .execute();
  return id;
}

export interface SessionRowOptions {
  ipAddress?: string;
  /** Default: eight hours from now. */
  endsAt?: number;
  endedAt?: number | null;
  kiosk?: boolean;
  stage?: 'active' | 'totp' | 'totp-enrol';
}

/** A user session row for `userId` (signed in fully unless the stage says otherwise). */
export async function givenSessionRow(ctx: AppContext, userId: string, options: SessionRowOptions = {}) {
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const endedAt = options.endedAt ?? null;
  await ctx.db
    .insertInto('userSessions')
    .values({
      id,
      tokenHash: createHash('sha256').update(randomBytes(32)).digest('hex'),
      userId,
      createdAt: now,
      endsAt: options.endsAt ?? now + 8 * HOUR,
      endedAt,
      endReason: endedAt === null ? null : 'logout',
      ipAddress: options.ipAddress ?? '192.0.2.10',
      userAgent: 'test',
      kiosk: options.kiosk ?? false,
      stage: options.stage ?? 'active',
    })
    .execute();
  return id;
}

/** An API key made the way the admin API makes it; returns its id, name and plaintext. */
export async function givenApiKey(
  ctx: AppContext,
  scopes: string[],
  options: { name?: string; allowedFrom?: AllowedFromEntry[]; expiresAt?: number } = {},
): Promise<{ id: string; name: string; plaintext: string }> {
  sequence += 1;
  const name = options.name ?? `key ${sequence}`;
  const { record, plaintext } = await ctx.db.transaction().execute((trx) =>
    createApiKey(trx, ctx, {
      Name: name,
      Scopes: scopes,
      AllowedFrom: options.allowedFrom,
      ExpiredAfter: options.expiresAt === undefined ? undefined : new Date(options.expiresAt).toISOString(),
    }),
  );
  return { id: record.ID, name, plaintext };
}

/** The Authorization header of HTTP Basic. */
export function basicAuth(userName: string, password: string): string {
  return `Basic ${Buffer.from(`${userName}:${password}`).toString('base64')}`;
}
