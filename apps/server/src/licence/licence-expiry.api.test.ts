import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, type UserStatus } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenIpsetKnocOfUser } from '../test-support/knoc-factories.js';
import { signInUser } from '../test-support/http.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { writeSetting } from '../settings/settings.js';
import { desiredEntries } from '../agent-hub/desired-state.js';
import { sweepGrantsOnce } from '../grants/grant-sweeper.js';
import { generateLicenceKeyPair, issueLicence, publicKeyBase64 } from './licence-format.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const ALICE = '192.0.2.10';
const signer = generateLicenceKeyPair();

/**
 * What a licence running out does to access (the README's "A licence for a local install" says the
 * same): grants already made run to their own expiry, nothing new is granted to users.
 */
// One test signs in for real (argon2id) after the expiry: that signing in still works is its subject.
describe('when the licence expires (sqlite)', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
  const t = useTestApp('sqlite', {
    config: { licencePublicKeys: [Buffer.from(publicKeyBase64(signer.publicKey), 'base64')] },
  });
  let agentId: string;
  let alice: { id: string; password: string };

  beforeEach(async () => {
    const now = t.clock.now();
    const licence = issueLicence(
      {
        ID: 'lic-expiring',
        Licensee: 'Test',
        UserLimit: 10,
        UserLimitOveragePercentage: 0,
        SessionLimit: 3,
        MaxMachines: 0,
        IssuedAt: new Date(now - HOUR).toISOString(),
        Expires: new Date(now + HOUR).toISOString(),
      },
      signer.privateKey,
    );
    await writeSetting(t.ctx.db, 'License', licence, now);
    agentId = (await givenAgent(t.ctx, { online: true })).id;
    alice = await givenUser(t.ctx, { userName: 'alice' });
  });

  const as = (cookie: string) => ({ headers: { cookie }, remoteAddress: ALICE });
  const status = async (cookie: string) =>
    (await t.app.inject({ method: 'GET', url: '/api/status', ...as(cookie) })).json<{ data: UserStatus }>().data;
  const grant = (cookie: string, aclId: string) =>
    t.app.inject({ method: 'POST', url: '/api/grant', ...as(cookie), payload: { ACLID: aclId, IPs: [] } });
  const keepAgentOnline = () =>
    t.ctx.db.updateTable('agents').set({ lastSeen: t.clock.now() }).where('id', '=', agentId).execute();

  it('keeps running grants until their own expiry, refuses new ones, and still signs people in', async () => {
    const running = await givenIpsetKnocOfUser(t.ctx, agentId, alice.id, { MaximumGrantDuration: 2 * 3600 });
    const other = await givenIpsetKnocOfUser(t.ctx, agentId, alice.id);
    const cookie = await givenUserSession(t, alice);
    expect((await grant(cookie, running.id)).statusCode).toBe(200);

    t.clock.advance(HOUR + MINUTE);
    await keepAgentOnline();
    // The grant made before the expiry is still enforced: the agent is still told to hold it.
    expect((await desiredEntries(t.ctx.db, agentId, t.clock.now())).map((entry) => entry.aclId)).toEqual([running.id]);
    // Nothing new: a click is refused, and the portal lists no systems while unlicensed.
    expect((await grant(cookie, other.id)).json()).toEqual({ Err: ErrorCodes.licenceRequired });
    expect(await status(cookie)).toMatchObject({ Licensed: false, UserLicensed: false, ACLs: [] });
    // Signing in still works (and shows the same unlicensed portal).
    const again = await signInUser(t.app, 'alice', alice.password);
    expect((await status(again)).ACLs).toEqual([]);

    // At the grant's own expiry (two hours after it was made) it ends, as it would have anyway.
    t.clock.advance(HOUR);
    await sweepGrantsOnce(t.ctx);
    expect(await desiredEntries(t.ctx.db, agentId, t.clock.now())).toEqual([]);
  });

  it('still lets an admin open a knoc for break glass, and refuses changes to knocs', async () => {
    const knoc = await givenIpsetKnocOfUser(t.ctx, agentId, alice.id);
    const admin = adminClient(t.app, await givenAdminSession(t));
    t.clock.advance(HOUR + MINUTE);
    await keepAgentOnline();
    const breakGlass = await admin.post(`/api/admin/acls/${knoc.id}/grants`, {
      IP: '198.51.100.9',
      Minutes: 30,
      Reason: 'outage',
    });
    expect(breakGlass.status, breakGlass.response.body).toBe(200);
    const update = await admin.put(`/api/admin/acls/${knoc.id}`, {
      ID: knoc.id,
      Description: 'renamed',
      BackendID: knoc.backendId,
      Config: { ipset: { V4SetName: 'p4' } },
    });
    expect(update.body).toEqual({ Err: ErrorCodes.licenceRequired });
  });
});
