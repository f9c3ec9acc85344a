import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { cookieFrom } from '../test-support/http.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { givenEnrolledTotp, wrongCode } from '../test-support/totp.js';
import { totpCodeAt } from './totp.js';
import { recentAudit } from '../audit/audit.js';
import { resetUserTotp } from '../users/users.service.js';
import { findAdminById } from '../admins/admins.repo.js';

const STEP = 30_000;

// The password step verifies a password (argon2id), up to twenty times in a test. Tests about the
// codes alone start from a session waiting for its code (givenUserSession with stage 'totp'), the
// row the password step writes.
describe('second factor (sqlite)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
  const t = useTestApp('sqlite');

  const inject = (method: 'GET' | 'POST', url: string, cookie?: string, payload?: object) =>
    t.app.inject({ method, url, headers: cookie === undefined ? {} : { cookie }, ...(payload ? { payload } : {}) });

  async function userPasswordStep(userName: string, password: string) {
    const response = await inject('POST', '/api/login', undefined, { UserName: userName, Password: password });
    return { response, cookie: cookieFrom(response, 'postern_session') };
  }

  describe('users', () => {
    it('asks an enrolled user for a code, then signs them in with a new session', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);

      const { response, cookie } = await userPasswordStep(user.userName, user.password);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.totpVerificationRequired });
      expect(cookie).toBeDefined();
      // The pending sign-in opens nothing but the OTP endpoints.
      expect((await inject('GET', '/api/status', cookie)).statusCode).toBe(401);

      t.clock.advance(STEP);
      const verified = await inject('POST', '/api/otp/verify', cookie, { Code: totpCodeAt(secret, t.clock.now()) });
      expect(verified.statusCode).toBe(200);
      expect(verified.json()).toEqual({ data: { Outcome: 'SignedIn' } });
      const fullCookie = cookieFrom(verified, 'postern_session');
      expect(fullCookie).not.toBe(cookie);
      expect((await inject('GET', '/api/status', fullCookie)).statusCode).toBe(200);
      expect((await inject('GET', '/api/status', cookie)).statusCode).toBe(401);
    });

    it('accepts each code once: a wrong one is err.invalidCode, the same one again err.totpCodeUsed', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);
      t.clock.advance(STEP);
      const code = totpCodeAt(secret, t.clock.now());

      const first = await givenUserSession(t, user, { stage: 'totp' });
      expect(
        (await inject('POST', '/api/otp/verify', first, { Code: wrongCode(secret, t.clock.now()) })).json(),
      ).toEqual({
        Err: ErrorCodes.invalidCode,
      });
      expect((await inject('POST', '/api/otp/verify', first, { Code: code })).statusCode).toBe(200);

      const second = await givenUserSession(t, user, { stage: 'totp' });
      const replay = await inject('POST', '/api/otp/verify', second, { Code: code });
      expect(replay.statusCode).toBe(400);
      expect(replay.json()).toEqual({ Err: ErrorCodes.totpCodeUsed });
      // Audited as a failed code all the same, and the sign-in still waits for the next code.
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(Object.keys(entry?.Entry ?? {})).toEqual([AuditActions.TotpFailed]);
      expect((await inject('GET', '/api/status', second)).statusCode).toBe(401);
    });

    it('enrols a new user: a fresh secret, then a code from it signs them in without asking again', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true, userName: 'enrolee' });
      const { response, cookie } = await userPasswordStep('enrolee', user.password);
      expect(response.json()).toEqual({ Err: ErrorCodes.totpEnrolmentRequired });

      const generated = await inject('GET', '/api/otp/generate', cookie);
      expect(generated.statusCode).toBe(200);
      const { Secret, URL } = generated.json<{ data: { Secret: string; URL: string } }>().data;
      expect(Secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(URL).toContain(`secret=${Secret}`);
      expect(URL).toContain('otpauth://totp/Postern:enrolee');

      const code = totpCodeAt(Secret, t.clock.now());
      const enrolled = await inject('POST', '/api/otp/verify', cookie, { Code: code });
      expect(enrolled.json()).toEqual({ data: { Outcome: 'Enrolled' } });
      // The enrolment is the sign-in: a full session replaces the pending one, audited as both.
      const fullCookie = cookieFrom(enrolled, 'postern_session');
      expect(fullCookie).toBeDefined();
      expect(fullCookie).not.toBe(cookie);
      expect((await inject('GET', '/api/status', fullCookie)).statusCode).toBe(200);
      expect((await inject('GET', '/api/status', cookie)).statusCode).toBe(401);
      const entries = (await recentAudit(t.ctx.db, 2)).map((entry) => Object.keys(entry.Entry)[0]);
      expect(entries).toEqual([AuditActions.UserLogin, AuditActions.TotpEnrolled]);
      const row = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.totpVerified).toBeTruthy();
      expect(row.totpSecret).not.toContain(Secret);
      expect(row.totpPendingSecret).toBeNull();

      // The enrolling code is spent; the next sign-in takes the next code from the same secret.
      const again = await userPasswordStep('enrolee', user.password);
      expect(again.response.json()).toEqual({ Err: ErrorCodes.totpVerificationRequired });
      const replay = await inject('POST', '/api/otp/verify', again.cookie, { Code: code });
      expect(replay.json()).toEqual({ Err: ErrorCodes.totpCodeUsed });
      t.clock.advance(STEP);
      const signedIn = await inject('POST', '/api/otp/verify', again.cookie, {
        Code: totpCodeAt(Secret, t.clock.now()),
      });
      expect(signedIn.json()).toEqual({ data: { Outcome: 'SignedIn' } });
    });

    it('refuses a wrong enrolment code and keeps the sign-in pending', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true, userName: 'enrolee2' });
      const { cookie } = await userPasswordStep('enrolee2', user.password);
      const { Secret } = (await inject('GET', '/api/otp/generate', cookie)).json<{ data: { Secret: string } }>().data;
      const wrong = await inject('POST', '/api/otp/verify', cookie, { Code: wrongCode(Secret, t.clock.now()) });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.json()).toEqual({ Err: ErrorCodes.invalidCode });
      expect(cookieFrom(wrong, 'postern_session')).toBeUndefined();
      expect((await inject('GET', '/api/status', cookie)).statusCode).toBe(401);
      const row = await t.ctx.db.selectFrom('users').selectAll().where('id', '=', user.id).executeTakeFirstOrThrow();
      expect(row.totpVerified).toBeFalsy();
    });

    it('says "Already verified 2FA" when an enrolled sign-in asks for a new secret', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      await givenEnrolledTotp(t, 'users', user.id);
      const cookie = await givenUserSession(t, user, { stage: 'totp' });
      const response = await inject('GET', '/api/otp/generate', cookie);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.alreadyVerified2fa });
    });

    it('lets a pending sign-in lapse after five minutes', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);
      const { cookie } = await userPasswordStep(user.userName, user.password);
      t.clock.advance(5 * 60_000);
      const response = await inject('POST', '/api/otp/verify', cookie, { Code: totpCodeAt(secret, t.clock.now()) });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidSession });
    });

    it('refuses 80 code guesses even when the password is re-entered every four', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);
      const answers: number[] = [];
      let cookie: string | undefined;
      for (let guess = 0; guess < 80; guess += 1) {
        if (guess % 4 === 0) {
          const step = await userPasswordStep(user.userName, user.password);
          // The password step keeps working: only the codes are held back.
          expect(step.response.json()).toEqual({ Err: ErrorCodes.totpVerificationRequired });
          cookie = step.cookie;
        }
        const code = wrongCode(secret, t.clock.now(), guess);
        answers.push((await inject('POST', '/api/otp/verify', cookie, { Code: code })).statusCode);
      }
      expect(answers.slice(0, 3)).toEqual([400, 400, 400]);
      expect(answers.slice(3).every((status) => status === 429)).toBe(true);

      const right = await inject('POST', '/api/otp/verify', cookie, { Code: totpCodeAt(secret, t.clock.now()) });
      expect(right.statusCode).toBe(429);
      expect(right.json()).toEqual({ Err: ErrorCodes.tooManyRequests, Extra: '1s' });
    });

    it('slows code guessing, then stops it for a day, and only a completed sign-in clears the count', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);
      const waits: number[] = [];
      const guess = async (code: string) => {
        const { cookie } = await userPasswordStep(user.userName, user.password);
        return inject('POST', '/api/otp/verify', cookie, { Code: code });
      };
      // A patient attacker who waits as long as told each time.
      for (let checked = 0; checked < 10;) {
        const answer = await guess(wrongCode(secret, t.clock.now(), checked));
        if (answer.statusCode === 429) {
          const seconds = Number(answer.headers['retry-after']);
          waits.push(seconds);
          t.clock.advance(seconds * 1000);
        } else {
          expect(answer.json()).toEqual({ Err: ErrorCodes.invalidCode });
          checked += 1;
        }
      }
      expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64]);
      const actions = (await recentAudit(t.ctx.db, 2)).map((entry) => Object.keys(entry.Entry)[0]);
      expect(actions).toEqual([AuditActions.SecondFactorBlocked, AuditActions.TotpFailed]);

      // Stopped: an hour later even the right code is not looked at.
      t.clock.advance(60 * 60_000);
      const stopped = await guess(totpCodeAt(secret, t.clock.now()));
      expect(stopped.statusCode).toBe(429);
      expect(stopped.headers['retry-after']).toBe(String(23 * 60 * 60));

      t.clock.advance(23 * 60 * 60_000);
      const signedIn = await guess(totpCodeAt(secret, t.clock.now()));
      expect(signedIn.json()).toEqual({ data: { Outcome: 'SignedIn' } });
      // The completed sign-in cleared the count: three free attempts again.
      t.clock.advance(STEP);
      for (let i = 0; i < 3; i += 1) {
        expect((await guess(wrongCode(secret, t.clock.now(), i))).statusCode).toBe(400);
      }
      expect((await guess(wrongCode(secret, t.clock.now(), 3))).statusCode).toBe(429);
    });

    it('gives codes a budget of their own: wrong codes never lock the password step, nor the reverse', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);
      for (let i = 0; i < 4; i += 1) {
        await inject('POST', '/api/login', undefined, { UserName: user.userName, Password: 'wrong password' });
      }
      const { cookie } = await userPasswordStep(user.userName, user.password);
      expect(
        (await inject('POST', '/api/otp/verify', cookie, { Code: wrongCode(secret, t.clock.now()) })).statusCode,
      ).toBe(400);
      t.clock.advance(STEP);
      const signedIn = await inject('POST', '/api/otp/verify', cookie, { Code: totpCodeAt(secret, t.clock.now()) });
      expect(signedIn.json()).toEqual({ data: { Outcome: 'SignedIn' } });
    });

    it('starts the count afresh when an administrator resets the 2FA', async () => {
      const user = await givenUser(t.ctx, { totpEnabled: true });
      const secret = await givenEnrolledTotp(t, 'users', user.id);
      const cookie = await givenUserSession(t, user, { stage: 'totp' });
      for (let i = 0; i < 4; i += 1) {
        await inject('POST', '/api/otp/verify', cookie, { Code: wrongCode(secret, t.clock.now(), i) });
      }
      const admin = await findAdminById(t.ctx.db, (await givenAdmin(t.ctx)).id);
      if (admin === null) throw new Error('the admin was not created');
      await resetUserTotp(t.ctx, admin, user.id);
      const secretAgain = await givenEnrolledTotp(t, 'users', user.id);
      const again = await givenUserSession(t, user, { stage: 'totp' });
      const answer = await inject('POST', '/api/otp/verify', again, {
        Code: wrongCode(secretAgain, t.clock.now()),
      });
      expect(answer.json()).toEqual({ Err: ErrorCodes.invalidCode });
    });

    it('needs no code from SAML users, whose IdP owns the second factor', async () => {
      // SAML users cannot use the password form at all; the rule is checked where sessions start.
      const user = await givenUser(t.ctx, { totpEnabled: true, authType: 'SAML', passwordHash: null });
      const response = await userPasswordStep(user.userName, 'anything at all');
      expect(response.response.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
    });
  });

  describe('admins', () => {
    async function adminPasswordStep(userName: string, password: string) {
      const response = await inject('POST', '/api/admin/login', undefined, { UserName: userName, Password: password });
      return { response, cookie: cookieFrom(response, 'postern_admin_session') };
    }

    it('signs an enrolled admin in only after a code', async () => {
      const admin = await givenAdmin(t.ctx, { totpEnabled: true, userName: 'secops' });
      const secret = await givenEnrolledTotp(t, 'admins', admin.id);
      const { response, cookie } = await adminPasswordStep('secops', admin.password);
      expect(response.json()).toMatchObject({
        data: { TotpEnabled: true, AdminTotpVerified: true, TotpEnrolmentDeferable: false },
      });
      expect((await inject('GET', '/api/admin/status', cookie)).statusCode).toBe(401);
      expect((await inject('GET', '/api/admin/session', cookie)).json()).toMatchObject({
        data: { UserName: 'secops' },
      });

      t.clock.advance(STEP);
      const verified = await inject('POST', '/api/admin/otp/verify', cookie, {
        Code: totpCodeAt(secret, t.clock.now()),
      });
      expect(verified.json()).toEqual({ data: { Outcome: 'SignedIn' } });
      expect((await inject('GET', '/api/admin/status', cookieFrom(verified, 'postern_admin_session'))).statusCode).toBe(
        200,
      );
    });

    it('lets an admin defer enrolment a limited number of times', async () => {
      const admin = await givenAdmin(t.ctx, { totpEnabled: true });
      for (let i = 0; i < 5; i += 1) {
        const { response, cookie } = await adminPasswordStep(admin.userName, admin.password);
        expect(response.json()).toMatchObject({ data: { TotpEnrolmentDeferable: true, AdminTotpVerified: false } });
        const deferred = await inject('POST', '/api/admin/otp/verify', cookie, { deferEnrolment: true });
        expect(deferred.json()).toEqual({ data: { Outcome: 'Deferred' } });
        expect(
          (await inject('GET', '/api/admin/status', cookieFrom(deferred, 'postern_admin_session'))).statusCode,
        ).toBe(200);
      }
      const { response, cookie } = await adminPasswordStep(admin.userName, admin.password);
      expect(response.json()).toMatchObject({ data: { TotpEnrolmentDeferable: false } });
      const refused = await inject('POST', '/api/admin/otp/verify', cookie, { deferEnrolment: true });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({ Err: ErrorCodes.totpEnrolmentNotDeferable });
    });

    it('enrols an admin, audits it and signs them in as two-factor verified without a second code', async () => {
      const admin = await givenAdmin(t.ctx, { totpEnabled: true, userName: 'newadmin' });
      const { cookie } = await adminPasswordStep('newadmin', admin.password);
      const { Secret } = (await inject('GET', '/api/admin/otp/generate', cookie)).json<{ data: { Secret: string } }>()
        .data;
      const enrolled = await inject('POST', '/api/admin/otp/verify', cookie, {
        Code: totpCodeAt(Secret, t.clock.now()),
      });
      expect(enrolled.json()).toEqual({ data: { Outcome: 'Enrolled' } });
      const [login, enrolment] = await recentAudit(t.ctx.db, 2);
      expect(enrolment?.Entry).toEqual({ [AuditActions.TotpEnrolled]: { AdminName: 'newadmin' } });
      expect(Object.keys(login?.Entry ?? {})).toEqual([AuditActions.AdminLogin]);

      const fullCookie = cookieFrom(enrolled, 'postern_admin_session');
      expect(fullCookie).not.toBe(cookie);
      expect((await inject('GET', '/api/admin/status', fullCookie)).statusCode).toBe(200);
      expect((await inject('GET', '/api/admin/status', cookie)).statusCode).toBe(401);
      expect((await inject('GET', '/api/admin/session', fullCookie)).json()).toMatchObject({
        data: { UserName: 'newadmin', TotpEnabled: true, AdminTotpVerified: true },
      });
    });

    it('gives an administrator one budget for codes, whichever form the password went through', async () => {
      const admin = await givenAdmin(t.ctx, { totpEnabled: true, userName: 'secops' });
      const secret = await givenEnrolledTotp(t, 'admins', admin.id);
      const viaUserForm = await inject('POST', '/api/login', undefined, {
        UserName: 'secops',
        Password: admin.password,
      });
      const userFormCookie = cookieFrom(viaUserForm, 'postern_admin_session');
      for (let i = 0; i < 3; i += 1) {
        const answer = await inject('POST', '/api/admin/otp/verify', userFormCookie, {
          Code: wrongCode(secret, t.clock.now(), i),
        });
        expect(answer.statusCode).toBe(400);
      }
      const { cookie } = await adminPasswordStep('secops', admin.password);
      const answer = await inject('POST', '/api/admin/otp/verify', cookie, { Code: totpCodeAt(secret, t.clock.now()) });
      expect(answer.statusCode).toBe(429);
    });

    it('tells a fully signed-in admin asking to verify that they already have', async () => {
      const cookie = await givenAdminSession(t);
      const response = await inject('POST', '/api/admin/otp/verify', cookie, { Code: '123456' });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.userAlreadyVerified });
    });

    it('signs in an admin who used the user form, as an admin, and says unauthorised', async () => {
      const admin = await givenAdmin(t.ctx, { userName: 'ops-person' });
      const response = await inject('POST', '/api/login', undefined, {
        UserName: 'ops-person',
        Password: admin.password,
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ Err: ErrorCodes.unauthorised });
      const adminCookie = cookieFrom(response, 'postern_admin_session');
      expect(adminCookie).toBeDefined();
      expect(cookieFrom(response, '__Host-postern_session')).toBeUndefined();
      expect((await inject('GET', '/api/admin/status', adminCookie)).statusCode).toBe(200);
    });
  });
});
