import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, type AuditEntry } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { cookieFrom } from '../test-support/http.js';
import { givenUserSession } from '../test-support/sessions.js';
import { givenEnrolledTotp } from '../test-support/totp.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { FakeAgent } from '../test-support/fake-agent.js';
import { sealBackendSecrets } from '../backends/backend-secrets.js';
import { totpCodeAt } from '../auth/totp.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { sealedSettingContext } from '../settings/settings.service.js';
import { SAML_PATHS } from '../saml/saml-endpoints.js';
import { UNREADABLE_SECRET_REPORT_INTERVAL_MS } from './unreadable-secrets.js';

/**
 * A sealed secret that cannot be opened where it lies (here: a row's ciphertext copied onto another
 * row, which the associated data refuses) is a clear error with an audit entry, never a 500 or a
 * knoc that silently vanishes from what its agent receives.
 */
describe.each(bothStores())('secrets that cannot be opened (%s)', (kind) => {
  const t = useTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS }, listen: true });

  const unreadableSecretAudit = async (): Promise<AuditEntry['Entry'][string][]> =>
    (await recentAudit(t.ctx.db, 100)).flatMap((entry) => {
      const detail = entry.Entry[AuditActions.SecretUnreadable];
      return detail === undefined ? [] : [detail];
    });

  // Its sign-ins verify a password hash.
  describe('a TOTP secret copied onto another account', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
    it('answers the code with 409 err.secretUnreadable and audits the row once an hour', async () => {
      const alice = await givenUser(t.ctx, { totpEnabled: true });
      const aliceSecret = await givenEnrolledTotp(t, 'users', alice.id);
      const bob = await givenUser(t.ctx, { totpEnabled: true });
      await givenEnrolledTotp(t, 'users', bob.id);
      const { totpSecret } = await t.ctx.db
        .selectFrom('users')
        .select('totpSecret')
        .where('id', '=', alice.id)
        .executeTakeFirstOrThrow();
      await t.ctx.db.updateTable('users').set({ totpSecret }).where('id', '=', bob.id).execute();

      const verify = async () => {
        const password = await t.app.inject({
          method: 'POST',
          url: '/api/login',
          payload: { UserName: bob.userName, Password: bob.password },
        });
        expect(password.json()).toEqual({ Err: ErrorCodes.totpVerificationRequired });
        t.clock.advance(30_000);
        return t.app.inject({
          method: 'POST',
          url: '/api/otp/verify',
          headers: { cookie: cookieFrom(password, 'postern_session') ?? '' },
          payload: { Code: totpCodeAt(aliceSecret, t.clock.now()) },
        });
      };

      const first = await verify();
      expect(first.statusCode).toBe(409);
      expect(first.json()).toEqual({ Err: ErrorCodes.secretUnreadable });
      const expected = {
        Description: `users.totp_secret of row ${bob.id}`,
        ErrorMessage: expect.stringMatching(/^authentication failed/) as string,
        IpAddress: '127.0.0.1',
      };
      expect(await unreadableSecretAudit()).toEqual([expected]);
      const audited = JSON.stringify(await recentAudit(t.ctx.db, 100));
      expect(audited).not.toContain(aliceSecret);
      expect(audited).not.toContain(totpSecret);

      expect((await verify()).json()).toEqual({ Err: ErrorCodes.secretUnreadable });
      expect(await unreadableSecretAudit()).toHaveLength(1);

      t.clock.advance(UNREADABLE_SECRET_REPORT_INTERVAL_MS);
      expect((await verify()).statusCode).toBe(409);
      expect(await unreadableSecretAudit()).toEqual([expected, expected]);
    });
  });

  describe('a SAML SP key moved from the admin realm to the user realm', () => {
    beforeEach(async () => {
      const now = t.clock.now();
      await writeSetting(t.ctx.db, 'PublicURL', 'https://access.example.com', now);
      await writeSetting(t.ctx.db, 'SAMLMetadataURL', 'https://idp.example.com/metadata', now);
      await writeSetting(t.ctx.db, 'SAMLCertFile', 'certificate', now);
      const sealedForAdmins = t.ctx.secrets.seal('private key', sealedSettingContext('AdminSAMLKeyFile'));
      await writeSetting(t.ctx.db, 'SAMLKeyFile', sealedForAdmins, now);
    });
    const location = `${SAML_PATHS.user.loginPage}?error=${ErrorCodes.secretUnreadable}`;
    const expected = { Description: 'settings.value of row SAMLKeyFile', ErrorMessage: expect.any(String) as string };

    it('sends a browser starting SAML sign-in to the login page with err.secretUnreadable', async () => {
      const answer = await t.app.inject({ method: 'GET', url: SAML_PATHS.user.login });
      expect(answer.statusCode).toBe(302);
      expect(answer.headers.location).toBe(location);
      expect(await unreadableSecretAudit()).toEqual([expected]);
      expect((await t.app.inject({ method: 'GET', url: SAML_PATHS.user.login })).headers.location).toBe(location);
      expect(await unreadableSecretAudit()).toHaveLength(1);
    });

    it('sends a browser posting to the ACS to the login page with err.secretUnreadable', async () => {
      const response = Buffer.from(
        `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" Destination="https://access.example.com${SAML_PATHS.user.acs}"/>`,
      ).toString('base64');
      const answer = await t.app.inject({
        method: 'POST',
        url: SAML_PATHS.user.acs,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ SAMLResponse: response }).toString(),
      });
      expect(answer.statusCode).toBe(302);
      expect(answer.headers.location).toBe(location);
      expect(await unreadableSecretAudit()).toEqual([expected]);
    });

    it('answers the SP metadata request with 409 err.secretUnreadable', async () => {
      const answer = await t.app.inject({ method: 'GET', url: SAML_PATHS.user.metadata });
      expect(answer.statusCode).toBe(409);
      expect(answer.json()).toEqual({ Err: ErrorCodes.secretUnreadable });
      expect(await unreadableSecretAudit()).toEqual([{ ...expected, IpAddress: '127.0.0.1' }]);
    });
  });

  describe('a vendor credential copied onto another backend', () => {
    let agents: FakeAgent[];
    beforeEach(() => {
      agents = [];
    });
    afterEach(async () => {
      for (const agent of agents) await agent.disconnect();
    });

    it('leaves the knoc out of what its agent receives, audited, and its grants carry the error', async () => {
      await givenLicence(t.ctx);
      const agent = await givenAgent(t.ctx, { name: 'edge' });
      const fortios = (Bearer: string) =>
        givenBackend(t.ctx, { type: 'fortios', agentId: agent.id, config: { Url: 'https://fw.example.com', Bearer } });
      const [broken, healthy] = [await fortios('broken-bearer'), await fortios('healthy-bearer')];
      const knocOn = (backendId: string, description: string) =>
        givenEnforcedKnoc(t.ctx, {
          backendId,
          type: 'fortios',
          aclConfig: { Name: 'ops' },
          options: { Description: description },
        });
      const [brokenKnoc, healthyKnoc] = [await knocOn(broken.id, 'Broken'), await knocOn(healthy.id, 'Healthy')];
      const { config } = await t.ctx.db
        .selectFrom('backends')
        .select('config')
        .where('id', '=', healthy.id)
        .executeTakeFirstOrThrow();
      await t.ctx.db.updateTable('backends').set({ config }).where('id', '=', broken.id).execute();
      const user = await givenUser(t.ctx);
      for (const knoc of [brokenKnoc, healthyKnoc]) {
        await t.ctx.db.insertInto('userAcls').values({ userId: user.id, aclId: knoc.id }).execute();
      }

      const fake = new FakeAgent(t.baseUrl, agent.token);
      agents.push(fake);
      await fake.connect();
      expect(fake.states()[0]?.knocs.map((knoc) => knoc.aclId)).toEqual([healthyKnoc.id]);
      const expected = {
        AclDescription: 'Broken',
        Description: `backends.config.Bearer of row ${broken.id}`,
        ErrorMessage: expect.stringMatching(/^authentication failed/) as string,
      };
      expect(await unreadableSecretAudit()).toEqual([expected]);

      const cookie = await givenUserSession(t, user);
      for (const knoc of [brokenKnoc, healthyKnoc]) {
        const granted = await t.app.inject({
          method: 'POST',
          url: '/api/grant',
          headers: { cookie },
          remoteAddress: '198.51.100.7',
          payload: { ACLID: knoc.id, IPs: [] },
        });
        expect(granted.statusCode, granted.body).toBe(200);
      }
      await fake.waitFor(() => fake.applies().some((apply) => apply.add.length > 0), 'the healthy grant');
      expect(fake.applies().flatMap((apply) => apply.add.map((entry) => entry.aclId))).toEqual([healthyKnoc.id]);
      const grantOf = (aclId: string) =>
        t.ctx.db.selectFrom('grants').select(['status', 'error']).where('aclId', '=', aclId).executeTakeFirstOrThrow();
      await t.hub.idle();
      const brokenGrant = await grantOf(brokenKnoc.id);
      expect(brokenGrant.status).toBe(GrantStatus.GrantError);
      expect(brokenGrant.error).toBe(
        "Postern cannot send the stored secret config.Bearer of this knoc's backend to its agent: authentication failed (moved to another place, altered, or sealed with another key); an administrator must re-enter it",
      );

      // A reconnect sends the same state without a second audit entry, and the grant keeps its error.
      await fake.disconnect();
      await fake.connect();
      expect(
        fake
          .states()
          .at(-1)
          ?.entries.map((entry) => entry.aclId),
      ).toEqual([healthyKnoc.id]);
      expect(await unreadableSecretAudit()).toHaveLength(1);
      expect((await grantOf(brokenKnoc.id)).status).toBe(GrantStatus.GrantError);

      // An admin re-enters the credential (sealed to the key the agent registered on connecting): the
      // knoc and its grant reach the agent again.
      const { sealingKey } = await t.ctx.db
        .selectFrom('agents')
        .select('sealingKey')
        .where('id', '=', agent.id)
        .executeTakeFirstOrThrow();
      expect(sealingKey).not.toBeNull();
      const reentered = sealBackendSecrets(
        { id: agent.id, name: agent.name, sealingKey },
        'fortios',
        { Url: 'https://fw.example.com', Bearer: 'broken-bearer' },
        broken.id,
      );
      await t.ctx.db
        .updateTable('backends')
        .set({ config: JSON.stringify(reentered) })
        .where('id', '=', broken.id)
        .execute();
      const states = fake.states().length;
      t.ctx.agentSync.agentsChanged([agent.id]);
      await fake.waitFor(() => fake.states().length > states, 'the state after the fix');
      expect(
        fake
          .states()
          .at(-1)
          ?.entries.map((entry) => entry.aclId)
          .sort(),
      ).toEqual([brokenKnoc.id, healthyKnoc.id].sort());
      await t.hub.idle();
      await expect.poll(async () => (await grantOf(brokenKnoc.id)).status).toBe(GrantStatus.Granted);
    });
  });
});
