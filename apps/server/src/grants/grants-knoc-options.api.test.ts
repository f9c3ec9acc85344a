import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { type TestApp } from '../test-support/test-app.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import { givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { ipAttestor } from '../ip-discovery/attestation.js';

// What a knoc's options change in its grants: IpExclusions, ClickToGrant, CGNATOpen, fixed addresses
// and auto-browse.
describe.each(['sqlite'] as const)('grant engine (%s)', (kind) => {
  const world = useGrantEngineWorld(kind);
  const { signIn, status, aclOf, grant, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  beforeEach(() => {
    ({ t, agent, agentId, userId } = world);
  });

  it('disables a knoc for an address its IpExclusions refuse', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      ipExclusions: { RestrictionType: 'RFC1918', RfcType: 'allow', Ranges: [] },
    });
    await agent.connect();
    const outside = await signIn('198.51.100.20');
    expect((await aclOf(outside, aclId)).DisableForUser).toBe(true);
    const response = await grant(outside, aclId);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ Err: ErrorCodes.aclDisabledForUser });
    const inside = await signIn('10.1.2.3');
    expect((await aclOf(inside, aclId)).DisableForUser).toBe(false);
  });

  it('grants knocs without ClickToGrant when the session starts', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { clickToGrant: false });
    await agent.connect();
    const alice = await signIn();
    await status(alice);
    await agent.waitFor(() => agent.applies().length === 1, 'the automatic add');
    expect(agent.applies()[0]?.add.map((entry) => entry.aclId)).toEqual([aclId]);
  });

  it('opens CGNATOpen knocs for attested discovered addresses too (the rules: cgnat.api.test.ts)', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { cgnatOpen: true });
    await agent.connect();
    const alice = await signIn('100.64.0.9');
    const attested = (IP: string, Port: number) => ({
      IP,
      Port,
      Attestation: ipAttestor(t.ctx.secrets).issue({ ip: IP, port: Port }, t.clock.now()),
    });
    const granted = await grant(alice, aclId, [attested('192.0.2.44', 443)]);
    expect(granted.statusCode, granted.body).toBe(200);
    await agent.waitFor(() => agent.applies().length >= 1);
    const added = () =>
      agent
        .applies()
        .flatMap((apply) => apply.add.map((entry) => entry.ip))
        .sort();
    expect(added()).toEqual(['100.64.0.9', '192.0.2.44']);

    const logged = await t.app.inject({
      method: 'POST',
      url: '/api/log_ips',
      headers: { cookie: alice.cookie },
      remoteAddress: alice.address,
      payload: { IPs: [attested('2001:db8::1', 8000)] },
    });
    expect(logged.statusCode, logged.body).toBe(200);
    await agent.waitFor(() => added().includes('2001:db8::1'), 'the discovered address');
  });

  it('grants a knoc’s fixed addresses, whoever clicks and from wherever', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      grantType: { Type: 'specifiedIps', Ips: [{ Ip: '192.0.2.10' }, { Ip: '192.0.2.11' }] },
    });
    await agent.connect();
    const alice = await signIn('198.51.100.3');
    expect((await aclOf(alice, aclId)).GrantTypeFixedIps).toBe(true);
    await grant(alice, aclId);
    await agent.waitFor(() => agent.applies().length === 1);
    expect(
      agent
        .applies()[0]
        ?.add.map((entry) => entry.ip)
        .sort(),
    ).toEqual(['192.0.2.10', '192.0.2.11']);
    // A fixed grant does not follow the user's address.
    await aclOf({ ...alice, address: '198.51.100.4' }, aclId);
    await settle();
    expect(agent.applies()).toHaveLength(1);
  });

  it('names the one auto-browse knoc with its knoctoken, and none when two ask for it', async () => {
    const first = await givenIpsetKnoc(t.ctx, agentId, userId);
    await t.ctx.db
      .updateTable('knocs')
      .set({ autoBrowseUsers: true, url: 'https://intranet.example/start?a=1' })
      .where('id', '=', first)
      .execute();
    const alice = await signIn();
    expect((await status(alice)).AutoBrowseToURI).toBe('https://intranet.example/start?a=1&knoctoken=uri-token-1');
    const second = await givenIpsetKnoc(t.ctx, agentId, userId);
    await t.ctx.db
      .updateTable('knocs')
      .set({ autoBrowseUsers: true, url: 'https://wiki.example/' })
      .where('id', '=', second)
      .execute();
    expect((await status(alice)).AutoBrowseToURI).toBeNull();
  });
});
