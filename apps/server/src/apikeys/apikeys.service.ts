import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  addressInAnyCidr,
  API_KEY_SCOPE_PATTERN,
  AuditActions,
  ErrorCodes,
  parseCidr,
  type AllowedFromEntry,
  type ApiKeyCreateBody,
  type ApiKeyRecord,
  type ApiKeyUpdateBody,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { recordAudit } from '../audit/audit.js';
import { BadRequestError, ConflictError, NotFoundError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import { generateToken } from '../lib/random-secret.js';
import { isUniqueViolation } from '../lib/unique-violation.js';
import { isoOrNull } from '../lib/rows.js';
import { authTypesOfUsers, existingKnocIds } from '../groups/groups.repo.js';
import type { AuditActor } from '../audit/actor.js';
import {
  apiKeyNameTaken,
  deleteApiKeyRow,
  findApiKeyRow,
  findApiKeyRowByHash,
  insertApiKeyRow,
  listApiKeyRows,
  setApiKeyAllowedFrom,
  type ApiKeyRow,
} from './apikeys.repo.js';

/** Marks a Postern API key, so leaked keys are recognisable (secret scanners, logs). */
const API_KEY_PREFIX = 'pst_';
/** `pst_` and 43 base64url characters: 256 random bits. */
const API_KEY_FORMAT = /^pst_[A-Za-z0-9_-]{43}$/;

/**
 * The console offers 12 months, 24 months or never. The server accepts any instant up to 25 months
 * ahead, leaving a month of slack for the browser's clock and time zone around the 24-month choice.
 */
const API_KEY_MAX_EXPIRY_MONTHS = 25;

/**
 * A key created with no AllowedFrom entries may be used from anywhere: it gets the spec's default
 * entries, written out so the list shows them and the admin can narrow them. A stored list is taken
 * literally, so a list an admin later empties means "from nowhere" (the key is suspended), never
 * "from anywhere": a mistake there fails closed.
 */
const DEFAULT_ALLOWED_FROM: readonly AllowedFromEntry[] = [
  { Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' },
  { Prefix: '::/0', Note: 'Anywhere (IPv6)' },
];

/** What creating a key needs; the shape of ApiKeyCreateBody, with AllowedFrom optional. */
export interface NewApiKeyInput {
  Name: string;
  Scopes: readonly string[];
  /** Omitted or empty: DEFAULT_ALLOWED_FROM. */
  AllowedFrom?: readonly AllowedFromEntry[] | undefined;
  /** ISO instant; omitted: never expires. */
  ExpiredAfter?: string | undefined;
}

/**
 * SHA-256 of the whole key. Enough for 256-bit random keys (nothing to brute-force) and lets the store
 * find a key by its hash; a stolen store therefore holds no usable key.
 */
export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext).digest('hex');
}

export async function listApiKeys(ctx: AppContext): Promise<ApiKeyRecord[]> {
  return (await listApiKeyRows(ctx.db)).map(toRecord);
}

export async function getApiKey(ctx: AppContext, id: string): Promise<ApiKeyRecord> {
  const row = await findApiKeyRow(ctx.db, id);
  if (row === null) throw new NotFoundError({ extra: 'API key' });
  return toRecord(row);
}

/**
 * Creates a key inside the caller's transaction (a user with AuthType apikey creates one alongside)
 * and audits it there. Checks every rule: unique name (409 err.apiKeyNameExists), scopes that name
 * existing knocs and users (400 err.invalidScope), CIDRs, and an expiry in the future and at most
 * API_KEY_MAX_EXPIRY_MONTHS ahead. The plaintext is returned here and exists nowhere else.
 */
export async function createApiKey(
  trx: Kysely<Database>,
  ctx: AppContext,
  input: NewApiKeyInput,
  actor: AuditActor = {},
): Promise<{ record: ApiKeyRecord; plaintext: string }> {
  const now = ctx.clock.now();
  const name = input.Name.trim();
  if (name === '') throw new BadRequestError({ extra: 'Name: required' });
  const scopes = [...new Set(input.Scopes)];
  if (scopes.length === 0) throw new BadRequestError({ extra: 'Scopes: at least one is required' });
  const allowedFrom = [
    ...(input.AllowedFrom === undefined || input.AllowedFrom.length === 0 ? DEFAULT_ALLOWED_FROM : input.AllowedFrom),
  ];
  checkAllowedFrom(allowedFrom);
  const expiresAt = input.ExpiredAfter === undefined ? null : checkExpiry(input.ExpiredAfter, now);
  await checkScopes(trx, scopes);
  if (await apiKeyNameTaken(trx, name)) throw new ConflictError({ code: ErrorCodes.apiKeyNameExists, extra: 'Name' });

  const plaintext = `${API_KEY_PREFIX}${generateToken()}`;
  const row: ApiKeyRow = {
    id: uuidv7(now),
    name,
    keyHash: hashApiKey(plaintext),
    scopes,
    allowedFrom,
    expiresAt,
    createdAt: now,
    lastUsedAt: null,
  };
  try {
    await insertApiKeyRow(trx, row);
  } catch (error) {
    // Another admin took the name between our check and the insert.
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.apiKeyNameExists, extra: 'Name' });
    throw error;
  }
  await recordAudit(trx, now, AuditActions.ApiKeyCreated, { ...actor, Description: name });
  return { record: toRecord(row), plaintext };
}

/** POST /api/admin/api-keys: a key in its own transaction. */
export async function createStandaloneApiKey(
  ctx: AppContext,
  actor: AuditActor,
  body: ApiKeyCreateBody,
): Promise<{ record: ApiKeyRecord; plaintext: string }> {
  try {
    return await ctx.db.transaction().execute((trx) => createApiKey(trx, ctx, body, actor));
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError({ code: ErrorCodes.apiKeyNameExists, extra: 'Name' });
    throw error;
  }
}

/**
 * Only AllowedFrom can change. Name, Scopes and ExpiredAfter may be sent (the console sends the whole
 * record back) but must equal the stored values, else 400 err.apiKeyFieldFixed naming the field.
 */
export async function updateApiKey(
  ctx: AppContext,
  actor: AuditActor,
  id: string,
  body: ApiKeyUpdateBody,
): Promise<ApiKeyRecord> {
  if (body.ID !== id) throw new BadRequestError({ code: ErrorCodes.mismatchingIds, extra: 'ID' });
  checkAllowedFrom(body.AllowedFrom);
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    const row = await findApiKeyRow(trx, id);
    if (row === null) throw new NotFoundError({ extra: 'API key' });
    const changed = changedFixedField(row, body);
    if (changed !== null) throw new BadRequestError({ code: ErrorCodes.apiKeyFieldFixed, extra: changed });
    await setApiKeyAllowedFrom(trx, id, body.AllowedFrom);
    await recordAudit(trx, now, AuditActions.ApiKeyUpdated, { ...actor, Description: row.name });
    return toRecord({ ...row, allowedFrom: body.AllowedFrom });
  });
}

export async function deleteApiKey(ctx: AppContext, actor: AuditActor, id: string): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    const row = await findApiKeyRow(trx, id);
    if (row === null || !(await deleteApiKeyRow(trx, id))) throw new NotFoundError({ extra: 'API key' });
    await recordAudit(trx, now, AuditActions.ApiKeyDeleted, { ...actor, Description: row.name });
  });
}

/**
 * Why a presented key may not be used. `unknown` covers malformed, unknown and deleted keys; the
 * others name a real key, so only the server's own logs and audit may tell them apart.
 */
export type ApiKeyRefusal = 'unknown' | 'expired' | 'scope' | 'address';

/** The outcome of checking a presented key, before anything is recorded. */
export type ApiKeyVerdict =
  | { ok: true; key: ApiKeyRecord }
  | { ok: false; refusal: 'unknown' }
  | { ok: false; refusal: Exclude<ApiKeyRefusal, 'unknown'>; key: ApiKeyRecord };

/**
 * Checks whether the key behind `plaintext` may do `requiredScope` from `sourceAddress` now, in the
 * order unknown → expired → scope → AllowedFrom, and says which rule refused it. Records nothing:
 * the caller records the use (touchApiKey) together with whatever else it writes.
 */
export async function verifyApiKey(
  ctx: AppContext,
  plaintext: string,
  sourceAddress: string,
  requiredScope: string,
): Promise<ApiKeyVerdict> {
  return verifyKey(ctx, plaintext, sourceAddress, (scopes) => scopes.includes(requiredScope));
}

const USER_AUTH_SCOPE_PREFIX = 'user.auth:';

/**
 * A key that acts as a user (a machine signing in): checked like {@link verifyApiKey}, where the scope
 * rule is that the key names exactly one user with `user.auth:{user ID}`. `userId` is that user when
 * the key passed every check, else null.
 */
export async function verifyUserAuthKey(
  ctx: AppContext,
  plaintext: string,
  sourceAddress: string,
): Promise<{ verdict: ApiKeyVerdict; userId: string | null }> {
  let userId: string | null = null;
  const verdict = await verifyKey(ctx, plaintext, sourceAddress, (scopes) => {
    const users = scopes.filter((scope) => scope.startsWith(USER_AUTH_SCOPE_PREFIX));
    userId = users.length === 1 ? (users[0] as string).slice(USER_AUTH_SCOPE_PREFIX.length) : null;
    return userId !== null;
  });
  return { verdict, userId: verdict.ok ? userId : null };
}

async function verifyKey(
  ctx: AppContext,
  plaintext: string,
  sourceAddress: string,
  scopeAllows: (scopes: readonly string[]) => boolean,
): Promise<ApiKeyVerdict> {
  if (!API_KEY_FORMAT.test(plaintext)) return { ok: false, refusal: 'unknown' };
  // The lookup is by the SHA-256 of the key: its timing can only reveal hash prefixes, which say
  // nothing about any key.
  const row = await findApiKeyRowByHash(ctx.db, hashApiKey(plaintext));
  if (row === null) return { ok: false, refusal: 'unknown' };
  const key = toRecord(row);
  if (row.expiresAt !== null && row.expiresAt <= ctx.clock.now()) return { ok: false, refusal: 'expired', key };
  if (!scopeAllows(row.scopes)) return { ok: false, refusal: 'scope', key };
  const prefixes = row.allowedFrom.map((entry) => entry.Prefix);
  if (!addressInAnyCidr(sourceAddress, prefixes)) return { ok: false, refusal: 'address', key };
  return { ok: true, key };
}

/** The ACL and user ids a key's scopes name, for display. */
function resourcesOf(scopes: readonly string[]): string[] {
  const resources = scopes.flatMap((scope) => {
    const colon = scope.indexOf(':');
    return colon === -1 ? [] : [scope.slice(colon + 1)];
  });
  return [...new Set(resources)];
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    ID: row.id,
    Name: row.name,
    Scopes: row.scopes,
    Resources: resourcesOf(row.scopes),
    AllowedFrom: row.allowedFrom,
    ExpiredAfter: isoOrNull(row.expiresAt),
    CreatedAt: new Date(row.createdAt).toISOString(),
    LastUsedAt: isoOrNull(row.lastUsedAt),
  };
}

/** Each scope follows the catalogue and names an existing knoc or user where it names one. */
async function checkScopes(db: Kysely<Database>, scopes: readonly string[]): Promise<void> {
  const invalid = scopes.find((scope) => !API_KEY_SCOPE_PATTERN.test(scope));
  if (invalid !== undefined) throw new BadRequestError({ code: ErrorCodes.invalidScope, extra: invalid });
  const named = (prefix: string) =>
    scopes.filter((scope) => scope.startsWith(prefix)).map((scope) => ({ scope, id: scope.slice(prefix.length) }));
  const aclScopes = named('allowlist.read:');
  const userScopes = named(USER_AUTH_SCOPE_PREFIX);
  const knocIds = aclScopes.map((entry) => entry.id);
  const knocs = await existingKnocIds(db, knocIds);
  const unknownAcl = aclScopes.find((entry) => !knocs.has(entry.id));
  if (unknownAcl !== undefined) throw new BadRequestError({ code: ErrorCodes.invalidScope, extra: unknownAcl.scope });
  const userIds = userScopes.map((entry) => entry.id);
  const users = await authTypesOfUsers(db, userIds);
  const unknownUser = userScopes.find((entry) => !users.has(entry.id));
  if (unknownUser !== undefined) throw new BadRequestError({ code: ErrorCodes.invalidScope, extra: unknownUser.scope });
}

/** The schema checks this for API calls; services called directly get the same rule. */
function checkAllowedFrom(entries: readonly AllowedFromEntry[]): void {
  if (entries.some((entry) => parseCidr(entry.Prefix) === null)) {
    throw new BadRequestError({ code: ErrorCodes.invalidCidr, extra: 'AllowedFrom' });
  }
}

function checkExpiry(iso: string, now: number): number {
  const expiresAt = Date.parse(iso);
  if (Number.isNaN(expiresAt)) throw new BadRequestError({ extra: 'ExpiredAfter: not a date' });
  if (expiresAt <= now) throw new BadRequestError({ extra: 'ExpiredAfter: must be in the future' });
  const latest = new Date(now);
  latest.setUTCMonth(latest.getUTCMonth() + API_KEY_MAX_EXPIRY_MONTHS);
  if (expiresAt > latest.getTime()) {
    throw new BadRequestError({ extra: `ExpiredAfter: at most ${API_KEY_MAX_EXPIRY_MONTHS} months ahead` });
  }
  return expiresAt;
}

/** The first of Name, Scopes, ExpiredAfter that the body sends with a value other than the stored one. */
function changedFixedField(row: ApiKeyRow, body: ApiKeyUpdateBody): 'Name' | 'Scopes' | 'ExpiredAfter' | null {
  if (body.Name !== undefined && body.Name.trim() !== row.name) return 'Name';
  if (body.Scopes !== undefined) {
    const sent = new Set(body.Scopes);
    if (sent.size !== row.scopes.length || row.scopes.some((scope) => !sent.has(scope))) return 'Scopes';
  }
  if (body.ExpiredAfter !== undefined) {
    const sent = body.ExpiredAfter === null ? null : Date.parse(body.ExpiredAfter);
    if (sent !== row.expiresAt) return 'ExpiredAfter';
  }
  return null;
}
