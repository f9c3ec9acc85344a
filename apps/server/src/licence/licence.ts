import type { Kysely } from 'kysely';
import {
  AuditActions,
  ErrorCodes,
  USER_LIMIT_WARNING_PERCENT,
  type LicenceStatus,
  type LicensingSummary,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import { type ApiError, BadRequestError, ConflictError, ForbiddenError } from '../errors.js';
import { readSetting, settingValue, writeSetting } from '../settings/settings.js';
import { recordAudit } from '../audit/audit.js';
import { countUsers } from '../users/users.repo.js';
import { checkLicence, LICENCE_PREFIX, type LicenceCheck, type LicencePayload } from './licence-format.js';
import { trustedLicenceKeys } from './licence-keys.js';
import { preparedQuery } from '../store/prepared-query.js';

/*
 * The installation's licence: the text in the 'License' setting, verified against the trusted keys
 * every time it is read (so removing a key or passing the expiry takes effect at once, on every
 * replica). Admins are not counted against the user limit: the users table holds only users.
 */

/**
 * The stored licence, checked now. `none` when no licence text is stored. `db` may be a transaction
 * (SQLite has one connection: a read outside the open transaction would wait for it forever).
 */
async function storedLicence(ctx: AppContext, db: Kysely<Database> = ctx.db): Promise<LicenceCheck | { kind: 'none' }> {
  return checkedLicence(ctx, await readSetting(db, 'License'));
}

function checkedLicence(ctx: AppContext, text: string): LicenceCheck | { kind: 'none' } {
  if (text.trim() === '') return { kind: 'none' };
  const check = checkLicence(text, trustedLicenceKeys(ctx), ctx.clock.now());
  reportChange(ctx, check);
  return check;
}

/** The last licence state logged, so a state is logged once when it begins, not on every status poll. */
let lastReported: string | null = null;

function reportChange(ctx: AppContext, check: LicenceCheck): void {
  const state = 'licence' in check ? `${check.kind}:${check.licence.ID}` : check.kind;
  if (state === lastReported) return;
  lastReported = state;
  // The licence text itself is never logged; its ID and state are enough to act on.
  if (check.kind === 'untrusted') {
    ctx.logger.warn('the stored licence is not signed by a trusted key; running unlicensed');
  } else if (check.kind === 'malformed') {
    ctx.logger.warn({ reason: check.reason }, 'the stored licence cannot be parsed; running unlicensed');
  } else if (check.kind === 'expired') {
    ctx.logger.warn({ licence: check.licence.ID, expires: check.licence.Expires }, 'the licence has expired');
  } else if (check.kind === 'notYetValid') {
    ctx.logger.warn(
      { licence: check.licence.ID, issuedAt: check.licence.IssuedAt },
      'the stored licence was issued in the future (check the clock); running unlicensed',
    );
  }
}

/** Extra users allowed beyond the limit: floor(UserLimit × percentage / 100). */
function userLimitOverage(licence: Pick<LicencePayload, 'UserLimit' | 'UserLimitOveragePercentage'>): number {
  return Math.floor((licence.UserLimit * licence.UserLimitOveragePercentage) / 100);
}

function statusFrom(check: LicenceCheck | { kind: 'none' }, userCount: number, machineCount = 0): LicenceStatus {
  if (check.kind === 'valid' || check.kind === 'expired') {
    const { licence } = check;
    return {
      Licensed: check.kind === 'valid',
      ID: licence.ID,
      Licensee: licence.Licensee,
      UserLimit: licence.UserLimit,
      UserLimitOverage: userLimitOverage(licence),
      UserLimitOveragePercentage: licence.UserLimitOveragePercentage,
      SessionLimit: licence.SessionLimit,
      MaxMachines: licence.MaxMachines,
      // Every agent counts as a machine, connected or not.
      MachineCount: machineCount,
      Expires: new Date(licence.Expires).toISOString(),
      Expired: check.kind === 'expired',
      UserCount: userCount,
    };
  }
  return {
    Licensed: false,
    ID: '',
    Licensee: '',
    UserLimit: 0,
    UserLimitOverage: 0,
    UserLimitOveragePercentage: 0,
    SessionLimit: 0,
    MaxMachines: 0,
    MachineCount: 0,
    Expires: null,
    Expired: false,
    UserCount: userCount,
  };
}

/**
 * The licence status the settings screen shows. Unlicensed, untrusted, malformed or issued in the
 * future: Licensed false and empty fields. Expired: Licensed false with the licence's fields and
 * Expired true.
 */
export async function licenceStatus(ctx: AppContext): Promise<LicenceStatus> {
  const [check, userCount, machineCount] = await Promise.all([
    storedLicence(ctx),
    countUsers(ctx.db),
    countAgents(ctx.db),
  ]);
  return statusFrom(check, userCount, machineCount);
}

/**
 * `GET …/license?refresh=true`: re-reads and re-verifies the stored licence, and says so when that is
 * impossible: no licence stored, a text that does not parse, or not exactly one licence in it
 * (409 err.failedToRefreshLicenseStatus). An untrusted or expired licence is a status, not a failure.
 */
export async function refreshLicenceStatus(ctx: AppContext): Promise<LicenceStatus> {
  const text = await readSetting(ctx.db, 'License');
  const tokens = text.split(/\s+/).filter((token) => token !== '');
  if (tokens.length === 0) throw refreshFailed('no licence is stored');
  const licences = tokens.filter((token) => token.startsWith(`${LICENCE_PREFIX}.`));
  if (licences.length !== tokens.length) throw refreshFailed('the stored licence cannot be parsed');
  if (licences.length !== 1) throw refreshFailed(`the store holds ${licences.length} licences, not one`);
  const check = checkLicence(text, trustedLicenceKeys(ctx), ctx.clock.now());
  if (check.kind === 'malformed') throw refreshFailed('the stored licence cannot be parsed');
  return statusFrom(check, await countUsers(ctx.db), await countAgents(ctx.db));
}

function refreshFailed(extra: string): ApiError {
  return new ConflictError({ code: ErrorCodes.failedToRefreshLicenseStatus, extra });
}

async function countAgents(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('agents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The admin status's `Licensing` block (same rules as licenceStatus). */
export async function currentLicensing(ctx: AppContext): Promise<LicensingSummary> {
  return summaryOf(statusFrom(await storedLicence(ctx), 0));
}

function summaryOf(status: LicenceStatus): LicensingSummary {
  return {
    Licensed: status.Licensed,
    Expires: status.Expires,
    UserLimit: status.UserLimit,
    UserLimitOverage: status.UserLimitOverage,
    UserLimitOveragePercentage: status.UserLimitOveragePercentage,
    SessionLimit: status.SessionLimit,
  };
}

/**
 * Where the user count stands against the licence:
 * - `unlicensed`: no valid licence (no limits apply, and users are not licensed);
 * - `withinLimit`: at most UserLimit users; `remaining` seats before the limit;
 * - `grace`: over UserLimit but within the overage; `remaining` grace seats, `overPercent` how far
 *   over the limit (rounded down), `warning` from USER_LIMIT_WARNING_PERCENT over;
 * - `beyond`: more users than UserLimit + overage: the service is disabled for users.
 */
export type UserLimitState =
  | { kind: 'unlicensed' }
  | { kind: 'withinLimit'; remaining: number }
  | { kind: 'grace'; remaining: number; overPercent: number; warning: boolean }
  | { kind: 'beyond'; overPercent: number };

/** The user-limit state for a licensing summary and a user count (pure; see UserLimitState). */
export function userLimitState(licensing: LicensingSummary, userCount: number): UserLimitState {
  if (!licensing.Licensed) return { kind: 'unlicensed' };
  const limit = licensing.UserLimit;
  if (userCount <= limit) return { kind: 'withinLimit', remaining: limit - userCount };
  const overPercent = Math.floor(((userCount - limit) * 100) / limit);
  const ceiling = limit + licensing.UserLimitOverage;
  if (userCount > ceiling) return { kind: 'beyond', overPercent };
  return {
    kind: 'grace',
    remaining: ceiling - userCount,
    overPercent,
    warning: (userCount - limit) * 100 >= limit * USER_LIMIT_WARNING_PERCENT,
  };
}

/** The stored licence text (as stored: JSON) and the user count, in one query. */
const licenceAndUserCount = preparedQuery((db) =>
  db.selectNoFrom((eb) => [
    eb.selectFrom('settings').select('value').where('key', '=', 'License').as('licence'),
    eb
      .selectFrom('users')
      .select((users) => users.fn.countAll<number>().as('count'))
      .as('userCount'),
  ]),
);

/** The installation's user-limit state now. */
export async function currentUserLimitState(ctx: AppContext): Promise<UserLimitState> {
  // One prepared query for both: every status poll and every grant asks.
  const [row] = await licenceAndUserCount(ctx.db);
  const licensing = summaryOf(statusFrom(checkedLicence(ctx, settingValue('License', row?.licence)), 0));
  return userLimitState(licensing, Number(row?.userCount ?? 0));
}

/**
 * Whether users may use the service: a valid, unexpired licence and no more users than UserLimit plus
 * the overage. Beyond that, or unlicensed or expired, users' `Licensed` is false.
 */
export async function usersAreLicensed(ctx: AppContext): Promise<boolean> {
  return usersLicensedIn(await currentUserLimitState(ctx));
}

/** Whether users may use the service in this user-limit state (see usersAreLicensed). */
export function usersLicensedIn(state: UserLimitState): boolean {
  return state.kind === 'withinLimit' || state.kind === 'grace';
}

/**
 * Refuses a new user (403 err.userLimitReached, Extra e.g. "30% over 10 users") when the store
 * already holds UserLimit + overage users. Only a valid licence limits: an unlicensed installation may
 * create users, who are then simply not licensed. Pass the creating transaction as `db` so the count
 * and the insert see the same data.
 */
export async function assertCanAddUser(ctx: AppContext, db: Kysely<Database> = ctx.db): Promise<void> {
  const licensing = summaryOf(statusFrom(await storedLicence(ctx, db), 0));
  if (!licensing.Licensed) return;
  const userCount = await countUsers(db);
  if (userCount >= licensing.UserLimit + licensing.UserLimitOverage) {
    throw new ForbiddenError({
      code: ErrorCodes.userLimitReached,
      extra: `${licensing.UserLimitOveragePercentage}% over ${licensing.UserLimit} users`,
    });
  }
}

/**
 * Refuses work that needs a licensed installation (creating or updating a knoc) with 403
 * err.licenceRequired ('A valid licence is required') when there is no valid, unexpired licence.
 */
export async function assertLicensed(ctx: AppContext): Promise<void> {
  if (!(await currentLicensing(ctx)).Licensed) throw new ForbiddenError({ code: ErrorCodes.licenceRequired });
}

/** The most concurrent sessions a user may have (and the default): the licence's, or null unlicensed. */
export async function maxSessionLimit(ctx: AppContext): Promise<number | null> {
  const licensing = await currentLicensing(ctx);
  return licensing.Licensed ? licensing.SessionLimit : null;
}

/**
 * Installs a licence (the API's PUT and `postern licence issue --install`): verifies it (400
 * err.licenceInvalid when malformed or not signed by a trusted key, 400 err.licenceExpired, 400
 * err.licenceNotYetValid when issued in the future), then stores it and writes the audit entry in
 * one transaction. Returns the new status.
 */
export async function installLicence(
  ctx: AppContext,
  actor: { adminName?: string },
  text: string,
): Promise<LicenceStatus> {
  const licence = text.trim();
  const check = checkLicence(licence, trustedLicenceKeys(ctx), ctx.clock.now());
  switch (check.kind) {
    case 'malformed':
      throw new BadRequestError({ code: ErrorCodes.licenceInvalid, extra: `malformed licence: ${check.reason}` });
    case 'untrusted':
      throw new BadRequestError({
        code: ErrorCodes.licenceInvalid,
        extra: 'the licence is not signed by a trusted key',
      });
    case 'expired':
      throw new BadRequestError({
        code: ErrorCodes.licenceExpired,
        extra: `the licence expired on ${check.licence.Expires}`,
      });
    case 'notYetValid':
      throw new BadRequestError({
        code: ErrorCodes.licenceNotYetValid,
        extra: `the licence was issued on ${check.licence.IssuedAt}, after this server's time`,
      });
    case 'valid':
      break;
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await writeSetting(trx, 'License', licence, now);
    await recordAudit(trx, now, AuditActions.LicenceUpdated, {
      Description: check.licence.ID,
      ...(actor.adminName === undefined ? {} : { AdminName: actor.adminName }),
    });
  });
  ctx.logger.info({ licence: check.licence.ID, expires: check.licence.Expires }, 'licence installed');
  // The same status GET answers next (machines counted too), read back from what was stored.
  return licenceStatus(ctx);
}
