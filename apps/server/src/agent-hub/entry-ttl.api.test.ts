import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AGENT_ENTRY_TTL_MAX_SECONDS, USER_SESSION_MINUTES_MAX } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenUser } from '../test-support/factories.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenIpsetKnocOfUser } from '../test-support/knoc-factories.js';
import { givenGrantRow, givenSessionRow } from '../test-support/v1-rows.js';
import { FakeAgent } from '../test-support/fake-agent.js';
import { givenUserSession } from '../test-support/sessions.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';

describe.each(bothStores())('the time-to-live an agent is sent (%s)', (kind) => {
  const t = useTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS }, listen: true });
  let agent: FakeAgent;
  let aclId: string;
  let userId: string;

  beforeEach(async () => {
    await givenLicence(t.ctx);
    const created = await givenAgent(t.ctx, { name: 'edge' });
    const user = await givenUser(t.ctx, { userName: 'alice', durationMinutes: USER_SESSION_MINUTES_MAX });
    userId = user.id;
    // No MaximumGrantDuration: a grant lasts as long as its session.
    const options = { ClickToGrant: true, MaximumGrantDuration: 0 };
    aclId = (await givenIpsetKnocOfUser(t.ctx, created.id, userId, options)).id;
    agent = new FakeAgent(t.baseUrl, created.token);
  });
  afterEach(async () => {
    await agent.disconnect();
  });

  it('is at most the longest session for a grant of a user with the longest Duration', async () => {
    await agent.connect();
    const cookie = await givenUserSession(t, { id: userId });
    const granted = await t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie },
      remoteAddress: '192.0.2.10',
      payload: { ACLID: aclId, IPs: [] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    await agent.waitFor(() => agent.applies().length > 0, 'the add');
    const ttls = agent.applies().flatMap((apply) => apply.add.map((entry) => entry.ttlSeconds));
    expect(ttls).toEqual([AGENT_ENTRY_TTL_MAX_SECONDS]);
  });

  it('is bounded for a grant stored before Durations were, ending in the year 6109', async () => {
    const endsAt = t.clock.now() + 2 ** 31 * 60_000;
    const sessionId = await givenSessionRow(t.ctx, userId, { endsAt });
    await givenGrantRow(t.ctx, aclId, '192.0.2.10', { sessionId, userName: 'alice', expiresAt: endsAt });

    await agent.connect();

    const [state] = agent.states();
    expect(state?.entries).toEqual([
      { aclId, ip: '192.0.2.10', userName: 'alice', ttlSeconds: AGENT_ENTRY_TTL_MAX_SECONDS, endsAt },
    ]);
  });

  it('carries the grant’s end, which a step of the server’s clock back does not move (only the ttl grows)', async () => {
    const endsAt = t.clock.now() + 600_000;
    const sessionId = await givenSessionRow(t.ctx, userId, { endsAt });
    await givenGrantRow(t.ctx, aclId, '192.0.2.10', { sessionId, userName: 'alice', expiresAt: endsAt });
    await agent.connect();
    t.clock.step(-3_600_000);
    await agent.disconnect();

    await agent.connect();

    expect(agent.states().map((state) => state.entries)).toEqual([
      [{ aclId, ip: '192.0.2.10', userName: 'alice', ttlSeconds: 600, endsAt }],
      [{ aclId, ip: '192.0.2.10', userName: 'alice', ttlSeconds: 4200, endsAt }],
    ]);
  });
});
