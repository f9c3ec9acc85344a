import { writeFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  AuditActions,
  ErrorCodes,
  USER_SESSION_MINUTES_DEFAULT,
  type LicenceStatus,
  type LicensingSummary,
} from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenAdmin } from '../test-support/factories.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { readSettings, writeSetting } from '../settings/settings.js';
import { recentAudit } from '../audit/audit.js';
import { insertUser } from '../users/users.repo.js';
import { uuidv7 } from '../lib/ids.js';
import { ApiError } from '../errors.js';
import { generateLicenceKeyPair, issueLicence, publicKeyBase64, type LicencePayload } from './licence-format.js';
import { trustedKeysFile } from './licence-keys.js';
import {
  assertCanAddUser,
  assertLicensed,
  currentLicensing,
  currentUserLimitState,
  licenceStatus,
  maxSessionLimit,
  userLimitState,
  usersAreLicensed,
  type UserLimitState,
} from './licence.js';
import { givenAgent } from '../test-support/agent-factories.js';

const signer = generateLicenceKeyPair();
const stranger = generateLicenceKeyPair();
const TRUSTED = [Buffer.from(publicKeyBase64(signer.publicKey), 'base64')];

/** 10 users with 50 % overage (at most 15), 3 sessions, 5 machines; valid from 2026-11-01 for a year. */
function payload(overrides: Partial<LicencePayload> = {}): LicencePayload {
  return {
    ID: 'lic-test-0001',
    Licensee: 'Example Pty Ltd',
    UserLimit: 10,
    UserLimitOveragePercentage: 50,
    SessionLimit: 3,
    MaxMachines: 5,
    IssuedAt: '2026-11-01T00:00:00.000Z',
    Expires: '2027-11-01T00:00:00.000Z',
    ...overrides,
  };
}

function licence(overrides: Partial<LicencePayload> = {}, key: KeyObject = signer.privateKey): string {
  return issueLicence(payload(overrides), key);
}

/** Stores a licence text as-is, the way an older release or a hand edit might have left it. */
async function storeLicenceText(ctx: AppContext, text: string): Promise<void> {
  await writeSetting(ctx.db, 'License', text, ctx.clock.now());
}

let sequence = 0;
/**
 * Adds users straight through the repository: the licence counts rows, and the factories' argon2
 * hashing for dozens of users would only slow the tables down.
 */
async function addUsers(ctx: AppContext, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    sequence += 1;
    await insertUser(ctx.db, {
      id: uuidv7(ctx.clock.now()),
      name: `Counted User ${sequence}`,
      userName: `counted${sequence}`,
      company: '',
      authType: 'local',
      passwordHash: null,
      ldapDn: null,
      durationMinutes: USER_SESSION_MINUTES_DEFAULT,
      sessionLimit: null,
      totpEnabled: false,
      totpVerified: false,
      disabled: false,
      validUntil: null,
      createdAt: ctx.clock.now(),
    });
  }
}

async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string; extra?: string } | null> {
  try {
    await work;
    return null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { status: error.statusCode, code: error.code, ...(error.extra === undefined ? {} : { extra: error.extra }) };
  }
}

const UNLICENSED: LicenceStatus = {
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
  UserCount: 0,
};

const LICENSED: LicenceStatus = {
  Licensed: true,
  ID: 'lic-test-0001',
  Licensee: 'Example Pty Ltd',
  UserLimit: 10,
  UserLimitOverage: 5,
  UserLimitOveragePercentage: 50,
  SessionLimit: 3,
  MaxMachines: 5,
  MachineCount: 0,
  Expires: '2027-11-01T00:00:00.000Z',
  Expired: false,
  UserCount: 0,
};

function summary(licensed: boolean, userLimit: number, percentage: number, overage: number): LicensingSummary {
  return {
    Licensed: licensed,
    Expires: '2027-11-01T00:00:00.000Z',
    UserLimit: userLimit,
    UserLimitOverage: overage,
    UserLimitOveragePercentage: percentage,
    SessionLimit: 3,
  };
}

describe('user limit state', () => {
  it.each<[string, LicensingSummary, number, UserLimitState]>([
    ['unlicensed', summary(false, 10, 50, 5), 99, { kind: 'unlicensed' }],
    ['no users', summary(true, 10, 50, 5), 0, { kind: 'withinLimit', remaining: 10 }],
    ['one below the limit', summary(true, 10, 50, 5), 9, { kind: 'withinLimit', remaining: 1 }],
    ['at the limit', summary(true, 10, 50, 5), 10, { kind: 'withinLimit', remaining: 0 }],
    ['10 % over', summary(true, 10, 50, 5), 11, { kind: 'grace', remaining: 4, overPercent: 10, warning: false }],
    ['20 % over', summary(true, 10, 50, 5), 12, { kind: 'grace', remaining: 3, overPercent: 20, warning: false }],
    [
      '30 % over: warning',
      summary(true, 10, 50, 5),
      13,
      { kind: 'grace', remaining: 2, overPercent: 30, warning: true },
    ],
    [
      'at limit plus overage',
      summary(true, 10, 50, 5),
      15,
      { kind: 'grace', remaining: 0, overPercent: 50, warning: true },
    ],
    ['one beyond limit plus overage', summary(true, 10, 50, 5), 16, { kind: 'beyond', overPercent: 60 }],
    // floor(7 × 50 / 100) = 3 extra seats; 2 over is 28 %, 3 over is 42 %.
    [
      'just under 30 % over',
      summary(true, 7, 50, 3),
      9,
      { kind: 'grace', remaining: 1, overPercent: 28, warning: false },
    ],
    [
      'just over 30 % over',
      summary(true, 7, 50, 3),
      10,
      { kind: 'grace', remaining: 0, overPercent: 42, warning: true },
    ],
    ['no overage: one over is beyond', summary(true, 10, 0, 0), 11, { kind: 'beyond', overPercent: 10 }],
  ])('%s', (_name, licensing, userCount, expected) => {
    expect(userLimitState(licensing, userCount)).toEqual(expected);
  });
});

// The licence feature's smoke file: both describes run on both stores.
describe.each(bothStores())('licence service (%s)', (kind) => {
  const t = useTestApp(kind, { config: { licencePublicKeys: TRUSTED } });

  it('reads an installation without a licence as unlicensed, without limits on new users', async () => {
    await addUsers(t.ctx, 3);
    expect(await licenceStatus(t.ctx)).toEqual({ ...UNLICENSED, UserCount: 3 });
    expect(await currentLicensing(t.ctx)).toEqual({
      Licensed: false,
      Expires: null,
      UserLimit: 0,
      UserLimitOverage: 0,
      UserLimitOveragePercentage: 0,
      SessionLimit: 0,
    });
    expect(await usersAreLicensed(t.ctx)).toBe(false);
    expect(await maxSessionLimit(t.ctx)).toBeNull();
    expect(await refusal(assertCanAddUser(t.ctx))).toBeNull();
  });

  it('reads a licence signed by a key from POSTERN_LICENCE_PUBLIC_KEYS', async () => {
    await storeLicenceText(t.ctx, licence());
    await addUsers(t.ctx, 2);
    expect(await licenceStatus(t.ctx)).toEqual({ ...LICENSED, UserCount: 2 });
    expect(await currentLicensing(t.ctx)).toEqual(summary(true, 10, 50, 5));
    expect(await usersAreLicensed(t.ctx)).toBe(true);
    expect(await maxSessionLimit(t.ctx)).toBe(3);
  });

  it('trusts a key listed in the data directory file as it trusts one from the environment', async () => {
    // An installation configured with no keys (read at each call; the next test has TRUSTED again).
    t.ctx.config.licencePublicKeys = [];
    await storeLicenceText(t.ctx, licence());
    expect((await licenceStatus(t.ctx)).Licensed).toBe(false);
    writeFileSync(
      trustedKeysFile(t.ctx.config.dataDir),
      `# signing key\n${publicKeyBase64(signer.publicKey)}\nnot a key\n`,
    );
    expect(await licenceStatus(t.ctx)).toEqual(LICENSED);
    // The file is cached by its stat: a change (the key removed) counts at the next read.
    writeFileSync(trustedKeysFile(t.ctx.config.dataDir), '# no keys any more\n');
    expect((await licenceStatus(t.ctx)).Licensed).toBe(false);
  });

  it('shows an expired licence with its fields but licenses nobody and limits nothing', async () => {
    await storeLicenceText(t.ctx, licence());
    t.clock.advance(Date.parse('2027-11-01T00:00:00.000Z') - t.clock.now());
    await addUsers(t.ctx, 20);
    expect(await licenceStatus(t.ctx)).toEqual({ ...LICENSED, Licensed: false, Expired: true, UserCount: 20 });
    expect(await currentLicensing(t.ctx)).toEqual(summary(false, 10, 50, 5));
    expect(await usersAreLicensed(t.ctx)).toBe(false);
    expect(await maxSessionLimit(t.ctx)).toBeNull();
    expect(await refusal(assertCanAddUser(t.ctx))).toBeNull();
  });

  it('requires a valid, unexpired licence for licensed work (403 err.licenceRequired)', async () => {
    const required = { status: 403, code: ErrorCodes.licenceRequired };
    expect(await refusal(assertLicensed(t.ctx))).toEqual(required);
    await storeLicenceText(t.ctx, licence());
    expect(await refusal(assertLicensed(t.ctx))).toBeNull();
    t.clock.advance(Date.parse('2027-11-01T00:00:00.000Z') - t.clock.now());
    expect(await refusal(assertLicensed(t.ctx))).toEqual(required);
  });

  it('reads a stored licence issued in the future as no licence until its issue time is near', async () => {
    await storeLicenceText(t.ctx, licence({ IssuedAt: '2026-12-01T00:00:00.000Z' }));
    expect(await licenceStatus(t.ctx)).toEqual(UNLICENSED);
    expect(await usersAreLicensed(t.ctx)).toBe(false);
    expect(await refusal(assertLicensed(t.ctx))).toEqual({ status: 403, code: ErrorCodes.licenceRequired });
    t.clock.advance(Date.parse('2026-11-30T23:55:00.000Z') - t.clock.now());
    expect((await licenceStatus(t.ctx)).Licensed).toBe(true);
  });

  it('reads a stored licence whose key is no longer trusted as no licence at all', async () => {
    await storeLicenceText(t.ctx, licence({}, stranger.privateKey));
    expect(await licenceStatus(t.ctx)).toEqual(UNLICENSED);
    expect(await usersAreLicensed(t.ctx)).toBe(false);
  });

  it.each<[number, boolean, UserLimitState['kind'], boolean]>([
    // users in the store, users licensed, state, may another user be added
    [9, true, 'withinLimit', true],
    [10, true, 'withinLimit', true],
    [11, true, 'grace', true],
    [13, true, 'grace', true],
    [14, true, 'grace', true],
    [15, true, 'grace', false],
    [16, false, 'beyond', false],
  ])(
    'with %i users of 10 (+5 grace): users licensed %s, state %s, may add one %s',
    async (count, licensed, state, mayAdd) => {
      await storeLicenceText(t.ctx, licence());
      await addUsers(t.ctx, count);
      expect(await usersAreLicensed(t.ctx)).toBe(licensed);
      expect((await currentUserLimitState(t.ctx)).kind).toBe(state);
      expect(await refusal(assertCanAddUser(t.ctx))).toEqual(
        mayAdd ? null : { status: 403, code: ErrorCodes.userLimitReached, extra: '50% over 10 users' },
      );
    },
  );

  it('does not count admins against the user limit', async () => {
    await storeLicenceText(t.ctx, licence({ UserLimit: 2, UserLimitOveragePercentage: 0 }));
    await givenAdmin(t.ctx);
    await givenAdmin(t.ctx);
    await givenAdmin(t.ctx);
    await addUsers(t.ctx, 1);
    expect((await licenceStatus(t.ctx)).UserCount).toBe(1);
    expect(await refusal(assertCanAddUser(t.ctx))).toBeNull();
    await addUsers(t.ctx, 1);
    expect(await refusal(assertCanAddUser(t.ctx))).toMatchObject({ extra: '0% over 2 users' });
  });

  it('checks the limit inside a transaction without waiting on itself', async () => {
    await storeLicenceText(t.ctx, licence({ UserLimit: 1, UserLimitOveragePercentage: 0 }));
    const outcome = await t.ctx.db.transaction().execute((trx) => refusal(assertCanAddUser(t.ctx, trx)));
    expect(outcome).toBeNull();
  });
});

describe.each(bothStores())('licence API (%s)', (kind) => {
  const URL = '/api/admin/settings/license';
  const t = useTestApp(kind, { config: { licencePublicKeys: TRUSTED } });
  let admin: AdminClient;
  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t, await givenAdmin(t.ctx, { userName: 'licensor' })));
  });

  const get = <T = unknown>(query = '', client = admin) => client.get<T>(`${URL}${query}`);
  const put = <T = unknown>(body: unknown, client = admin) => client.put<T>(URL, body);
  /** Someone without an admin session. */
  const nobody = () => adminClient(t.app, '');

  it.each([
    ['GET', () => get('', nobody())],
    ['GET with refresh', () => get('?refresh=true', nobody())],
    ['PUT with a valid licence', () => put({ License: licence() }, nobody())],
    ['PUT with a body that would not validate', () => put({ Nope: 1 }, nobody())],
  ])('refuses %s without an admin session', async (_name, call) => {
    const response = await call();
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ Err: ErrorCodes.invalidSession });
  });

  it('answers the PUT with the status the next GET answers, machines counted', async () => {
    await givenAgent(t.ctx);
    const installed = await put<{ data: LicenceStatus }>({ License: licence() });
    expect(installed.status).toBe(200);
    expect(installed.body.data.MachineCount).toBe(1);
    expect((await get<{ data: LicenceStatus }>()).body).toEqual(installed.body);
  });

  it('counts every agent as a machine', async () => {
    expect((await put({ License: licence() })).status).toBe(200);
    await givenAgent(t.ctx);
    await givenAgent(t.ctx);
    expect((await get<{ data: { MachineCount: number } }>()).body.data.MachineCount).toBe(2);
  });

  it('shows an unlicensed installation', async () => {
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: UNLICENSED });
  });

  it.each<[string, () => unknown, number, string]>([
    ['an empty licence', () => ({ License: '   ' }), 400, ErrorCodes.badRequest],
    ['a missing field', () => ({}), 400, ErrorCodes.badRequest],
    ['an oversized licence', () => ({ License: 'x'.repeat(8193) }), 400, ErrorCodes.badRequest],
    ['a malformed licence', () => ({ License: 'postern-licence-v1.abc' }), 400, ErrorCodes.licenceInvalid],
    ['a licence of another product', () => ({ License: 'ABCD-EFGH-IJKL' }), 400, ErrorCodes.licenceInvalid],
    ['an untrusted licence', () => ({ License: licence({}, stranger.privateKey) }), 400, ErrorCodes.licenceInvalid],
    [
      'an expired licence',
      () => ({ License: licence({ IssuedAt: '2025-01-01T00:00:00Z', Expires: '2026-01-01T00:00:00Z' }) }),
      400,
      ErrorCodes.licenceExpired,
    ],
    [
      'a licence issued a second beyond the allowed clock skew',
      () => ({ License: licence({ IssuedAt: '2026-11-22T09:05:01.000Z' }) }),
      400,
      ErrorCodes.licenceNotYetValid,
    ],
    [
      'a licence issued next year',
      () => ({ License: licence({ IssuedAt: '2027-06-01T00:00:00.000Z' }) }),
      400,
      ErrorCodes.licenceNotYetValid,
    ],
  ])('refuses %s and stores nothing', async (_name, body, status, code) => {
    const response = await put<{ Err: string }>(body());
    expect(response.status).toBe(status);
    expect(response.body.Err).toBe(code);
    expect((await readSettings(t.ctx.db)).License).toBe('');
    expect((await recentAudit(t.ctx.db, 10)).some((e) => AuditActions.LicenceUpdated in e.Entry)).toBe(false);
  });

  it('installs a licence issued within the allowed clock skew ahead of this server', async () => {
    const response = await put<{ data: LicenceStatus }>({ License: licence({ IssuedAt: '2026-11-22T09:05:00.000Z' }) });
    expect(response.status, response.response.body).toBe(200);
    expect(response.body.data.Licensed).toBe(true);
  });

  it('says why a licence issued in the future is refused', async () => {
    const response = await put({ License: licence({ IssuedAt: '2026-12-01T00:00:00.000Z' }) });
    expect(response.body).toEqual({
      Err: ErrorCodes.licenceNotYetValid,
      Extra: "the licence was issued on 2026-12-01T00:00:00.000Z, after this server's time",
    });
  });

  it('installs a valid licence, audits it with its ID, and shows it', async () => {
    await addUsers(t.ctx, 4);
    const text = licence();
    const response = await put({ License: `\n${text}\n` });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { ...LICENSED, UserCount: 4 } });

    expect((await readSettings(t.ctx.db)).License).toBe(text);
    const [entry] = await recentAudit(t.ctx.db, 1);
    expect(entry?.Entry).toEqual({
      [AuditActions.LicenceUpdated]: { Description: 'lic-test-0001', AdminName: 'licensor' },
    });

    expect((await get()).body).toEqual({ data: { ...LICENSED, UserCount: 4 } });
    expect((await get('?refresh=true')).body).toEqual({ data: { ...LICENSED, UserCount: 4 } });
    expect(await currentLicensing(t.ctx)).toEqual(summary(true, 10, 50, 5));
  });

  it('replaces an installed licence with a new one', async () => {
    expect((await put({ License: licence() })).status).toBe(200);
    const response = await put<{ data: LicenceStatus }>({ License: licence({ ID: 'lic-test-0002', UserLimit: 50 }) });
    expect(response.body.data).toMatchObject({ ID: 'lic-test-0002', UserLimit: 50 });
    expect((await get<{ data: LicenceStatus }>()).body.data.ID).toBe('lic-test-0002');
  });

  it.each<[string, () => string, string]>([
    ['no licence is stored', () => '', 'no licence is stored'],
    ['the stored text is not a licence', () => 'ABCD-EFGH', 'cannot be parsed'],
    ['the stored licence is broken', () => 'postern-licence-v1.abc.def', 'cannot be parsed'],
    ['two licences are stored', () => `${licence()}\n${licence({ ID: 'lic-test-0002' })}`, '2 licences'],
  ])('answers a refresh with 409 when %s', async (_name, stored, extra) => {
    await storeLicenceText(t.ctx, stored());
    const response = await get('?refresh=true');
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      Err: ErrorCodes.failedToRefreshLicenseStatus,
      Extra: expect.stringContaining(extra) as string,
    });
  });

  it('refreshes an expired licence into a status that says so', async () => {
    expect((await put({ License: licence() })).status).toBe(200);
    t.clock.advance(Date.parse('2027-11-02T00:00:00.000Z') - t.clock.now());
    // A year on, the first session has long ended.
    const response = await get('?refresh=true', adminClient(t.app, await givenAdminSession(t)));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ data: { ...LICENSED, Licensed: false, Expired: true } });
  });

  it('refuses a refresh value other than true or false', async () => {
    expect((await get('?refresh=yes')).status).toBe(400);
  });
});
