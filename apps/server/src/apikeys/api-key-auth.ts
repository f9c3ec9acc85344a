import type { FastifyRequest } from 'fastify';
import { API_KEY_BASIC_USER, ErrorCodes, type ApiKeyRecord } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { type ApiError, ForbiddenError, TooManyRequestsError, UnauthenticatedError } from '../errors.js';
import { clientAddress } from '../lib/client-address.js';
import { ADDRESS_POLICY, blockedFor, recordFailure, throttleSubject, type ThrottleKey } from '../auth/throttle.js';
import { verifyApiKey } from './apikeys.service.js';
import { touchApiKey } from './apikeys.repo.js';

/**
 * How the /api/v1 endpoints recognise an API key: HTTP Basic with the user name `apiuser` and the key
 * as the password (what firewalls can send), or `Authorization: Bearer <key>` (what scripts prefer).
 */
export type PresentedCredentials =
  | { kind: 'none' }
  /** Something was sent but cannot be a key: another scheme, a malformed header, another user name. */
  | { kind: 'invalid'; reason: string }
  | { kind: 'key'; plaintext: string };

export function readCredentials(authorization: string | undefined): PresentedCredentials {
  if (authorization === undefined || authorization.trim() === '') return { kind: 'none' };
  const match = /^\s*(\S+)\s+(\S+)\s*$/.exec(authorization);
  const scheme = match?.[1]?.toLowerCase();
  const value = match?.[2] ?? '';
  if (scheme === 'bearer') return { kind: 'key', plaintext: value };
  if (scheme !== 'basic') return { kind: 'invalid', reason: 'unsupported authorization scheme' };
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return { kind: 'invalid', reason: 'malformed basic credentials' };
  if (decoded.slice(0, colon) !== API_KEY_BASIC_USER) return { kind: 'invalid', reason: 'wrong user name' };
  return { kind: 'key', plaintext: decoded.slice(colon + 1) };
}

/** The outcome of checking presented credentials for one scope from one address. */
export type KeyCheck =
  | { ok: true; key: ApiKeyRecord }
  /** `key` is set when the credentials named a real key (for the audit), even though it was refused. */
  | { ok: false; addressRefused: boolean; reason: string; key?: ApiKeyRecord };

const REFUSAL_REASONS = {
  unknown: 'unknown API key',
  expired: 'API key expired',
  scope: 'API key lacks the scope',
  address: 'API key not allowed from this address',
} as const;

/** Checks credentials that were sent (not `none`); records nothing. */
export async function checkCredentials(
  ctx: AppContext,
  credentials: Exclude<PresentedCredentials, { kind: 'none' }>,
  address: string,
  scope: string,
): Promise<KeyCheck> {
  if (credentials.kind === 'invalid') return { ok: false, addressRefused: false, reason: credentials.reason };
  const verdict = await verifyApiKey(ctx, credentials.plaintext, address, scope);
  if (verdict.ok) return verdict;
  const reason = REFUSAL_REASONS[verdict.refusal];
  return verdict.refusal === 'unknown'
    ? { ok: false, addressRefused: false, reason }
    : { ok: false, addressRefused: verdict.refusal === 'address', reason, key: verdict.key };
}

/** 401 err.unauthorised with the Basic challenge, so HTTP clients that wait for one send the key. */
export function basicChallenge(realm: string): ApiError {
  return new UnauthenticatedError({ code: ErrorCodes.unauthorised, wwwAuthenticate: `Basic realm="${realm}"` });
}

/** The answer to a refused key check: 403 for a good key used from elsewhere, else the challenge. */
export function refusalError(check: Extract<KeyCheck, { ok: false }>, realm: string): ApiError {
  return check.addressRefused
    ? new ForbiddenError({ code: ErrorCodes.apiKeyAddressNotAllowed })
    : basicChallenge(realm);
}

/**
 * Failed key uses are counted per client address in the sign-in throttle's table (shared by
 * replicas), under their own key so a scanner of /api/v1 does not lock the address out of signing in,
 * with the sign-in address policy. Addresses count as sign-ins count them: IPv6 per /64.
 */
export function apiKeyThrottleKey(address: string): ThrottleKey {
  return { key: `apikey:address:${throttleSubject(address)}`, policy: ADDRESS_POLICY };
}

/** 429 with Retry-After while the address is blocked; during a block even a good key gets this. */
export async function refuseIfThrottled(ctx: AppContext, address: string): Promise<void> {
  const waitMs = await blockedFor(ctx.db, [apiKeyThrottleKey(address)], ctx.clock.now());
  if (waitMs > 0) throw new TooManyRequestsError({ retryAfterSeconds: waitMs / 1000 });
}

export async function countFailure(ctx: AppContext, address: string): Promise<void> {
  await recordFailure(ctx.db, [apiKeyThrottleKey(address)], ctx.clock.now());
}

/**
 * The key behind this request if it may use `scope` from the caller's address; records the use as
 * LastUsedAt. Otherwise throws: 429 while the address is throttled, 401 with a Basic challenge for no,
 * wrong or insufficient credentials, 403 err.apiKeyAddressNotAllowed for a good key used from outside
 * its AllowedFrom. A request without credentials is not counted as a failure: it is the first half of
 * the Basic exchange for clients that wait for the challenge.
 */
export async function requireApiKey(
  ctx: AppContext,
  request: FastifyRequest,
  scope: string,
  realm: string,
): Promise<ApiKeyRecord> {
  const address = clientAddress(request);
  await refuseIfThrottled(ctx, address);
  const credentials = readCredentials(request.headers.authorization);
  if (credentials.kind === 'none') throw basicChallenge(realm);
  const check = await checkCredentials(ctx, credentials, address, scope);
  if (!check.ok) {
    await countFailure(ctx, address);
    throw refusalError(check, realm);
  }
  await touchApiKey(ctx.db, check.key.ID, ctx.clock.now());
  return check.key;
}
