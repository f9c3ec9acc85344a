import { beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, IP_ATTESTATION_TTL_MS } from '@postern/protocol';
import type { TestApp } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import {
  ALICE_ADDRESS,
  givenIpsetKnoc,
  useGrantEngineWorld,
  type Browser,
} from '../test-support/grant-engine-world.js';
import { recentAudit } from '../audit/audit.js';
import { writeSetting } from '../settings/settings.js';
import { ipAttestor } from '../ip-discovery/attestation.js';
import { sweepGrantsOnce } from './grant-sweeper.js';

/**
 * Issue 33 item 3, "dual stack in one click": the browser learns its IPv4 and its IPv6 address from
 * the IPv4-only and IPv6-only discovery URLs (DualStackIPs, each attested by the responder), and a
 * grant of a knoc for the user's address opens the request's own address and the attested one of the
 * other family, CGNATOpen or not. Every rule of the reported addresses holds for it (a 400 naming the
 * field, nothing stored, nothing sent to the agent); revoke and expiry end both entries.
 */

/** Alice's IPv6 address beside her IPv4 ALICE_ADDRESS (RFC 3849 documentation range). */
const ALICE_V6 = '2001:db8::a11c';

describe.each(bothStores())('dual-stack grants (%s)', (kind) => {
  const world = useGrantEngineWorld(kind);
  const { signIn, aclOf, revoke, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  beforeEach(() => {
    ({ t, agent, agentId, userId } = world);
  });

  /** What the responder answered this browser on `port`, issued `ageMs` ago. */
  const attested = (IP: string, Port = 8000, ageMs = 0) => ({
    IP,
    Port,
    Attestation: ipAttestor(t.ctx.secrets).issue({ ip: IP, port: Port }, t.clock.now() - ageMs),
  });
  const grant = (who: Browser, aclId: string, DualStackIPs: object[], IPs: object[] = []) =>
    t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie: who.cookie },
      remoteAddress: who.address,
      payload: { ACLID: aclId, IPs, DualStackIPs },
    });
  const added = () => agent.applies().flatMap((apply) => apply.add.map((entry) => entry.ip));
  const removed = () => agent.applies().flatMap((apply) => apply.remove.map((entry) => entry.ip));
  const running = async () =>
    (await t.ctx.db.selectFrom('grants').select('ip').where('endedAt', 'is', null).execute())
      .map((row) => row.ip)
      .sort();
  const lastAudit = async (action: string) =>
    (await recentAudit(t.ctx.db, 10)).map((entry) => entry.Entry).find((entry) => action in entry);

  /** A refused grant left nothing behind: the next plain grant's add carries only the caller's address. */
  async function expectNothingGranted(alice: Browser, aclId: string): Promise<void> {
    expect(await running()).toEqual([]);
    const plain = await grant(alice, aclId, []);
    expect(plain.statusCode, plain.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the plain grant');
    expect(added()).toEqual([alice.address]);
  }

  it('opens the request’s IPv4 address and the attested IPv6 one in one click, without CGNATOpen, and audits both', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { cgnatOpen: false });
    await agent.connect();
    const alice = await signIn();
    const response = await grant(alice, aclId, [attested(ALICE_ADDRESS), attested('2001:DB8:0::A11C', 443)]);
    expect(response.statusCode, response.body).toBe(200);

    await agent.waitFor(() => added().length === 2, 'both adds');
    expect(added().sort()).toEqual([ALICE_ADDRESS, ALICE_V6]);
    // One knoc, one entry per family: the agent writes each to its own set (V4SetName, V6SetName).
    expect(agent.applies()[0]?.add.map((entry) => entry.aclId)).toEqual([aclId, aclId]);
    await settle();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.Granted);
    expect(await running()).toEqual([ALICE_ADDRESS, ALICE_V6]);
    expect(await lastAudit(AuditActions.ClickToGrant)).toEqual({
      [AuditActions.ClickToGrant]: expect.objectContaining({
        UserName: 'alice',
        IpAddress: `${ALICE_ADDRESS}, ${ALICE_V6}`,
      }) as object,
    });
  });

  it('opens the attested IPv4 address beside a request from IPv6', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn(ALICE_V6);
    const response = await grant(alice, aclId, [attested('::ffff:192.0.2.1'), attested(ALICE_V6)]);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => added().length === 2, 'both adds');
    expect(added().sort()).toEqual([ALICE_ADDRESS, ALICE_V6]);
    expect(await running()).toEqual([ALICE_ADDRESS, ALICE_V6]);
  });

  it.each([
    ['without an attestation', () => ({ IP: ALICE_V6, Port: 8000 }), ErrorCodes.ipAddressNotSeen],
    [
      'with an expired attestation',
      () => attested(ALICE_V6, 8000, IP_ATTESTATION_TTL_MS + 1),
      ErrorCodes.ipAddressNotSeen,
    ],
    [
      'with a tampered attestation',
      () => {
        const entry = attested(ALICE_V6);
        const last = entry.Attestation.slice(-1);
        return { ...entry, Attestation: `${entry.Attestation.slice(0, -1)}${last === 'A' ? 'B' : 'A'}` };
      },
      ErrorCodes.ipAddressNotSeen,
    ],
    [
      'attested for another address',
      () => ({ ...attested('2001:db8::bad'), IP: ALICE_V6 }),
      ErrorCodes.ipAddressNotSeen,
    ],
    ['that no grant may open, even attested', () => attested('fe80::1'), ErrorCodes.ipAddressNotGrantable],
  ])('refuses the other family’s address %s, naming the field, and grants nothing', async (_name, entry, code) => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    const response = await grant(alice, aclId, [attested(ALICE_ADDRESS), entry()]);

    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: code, Extra: 'DualStackIPs.1.IP' });
    await expectNothingGranted(alice, aclId);
  });

  it('opens an unattested address of the other family only while DiscoverIPTrustUnattested is on', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    await writeSetting(t.ctx.db, 'DiscoverIPTrustUnattested', true, t.clock.now());
    const alice = await signIn();
    const response = await grant(alice, aclId, [{ IP: ALICE_V6, Port: 443 }]);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => added().length === 2, 'both adds');
    expect(added().sort()).toEqual([ALICE_ADDRESS, ALICE_V6]);
  });

  it('adds no second address of the caller’s own family, and one of the other family at most', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    const sameFamily = await grant(alice, aclId, [attested('198.51.100.7')]);
    expect(sameFamily.statusCode, sameFamily.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the add');
    expect(added()).toEqual([ALICE_ADDRESS]);
    expect(await running()).toEqual([ALICE_ADDRESS]);

    const other = await givenIpsetKnoc(t.ctx, agentId, userId);
    const twoV6 = await grant(alice, other, [attested(ALICE_V6), attested('2001:db8::2')]);
    expect(twoV6.statusCode, twoV6.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 2, 'the second grant');
    expect(
      agent
        .applies()[1]
        ?.add.map((entry) => entry.ip)
        .sort(),
    ).toEqual([ALICE_ADDRESS, ALICE_V6]);
  });

  it.each([
    // RFC 1918 only: an IPv6 address is outside every IPv4 range, so an allow rule keeps it out.
    ['an allow rule', '10.20.30.40', ALICE_V6, 'allow' as const],
    // A deny rule of RFC 1918 keeps the private IPv4 address out beside a request from IPv6.
    ['a deny rule', ALICE_V6, '10.20.30.40', 'deny' as const],
  ])('leaves out the other family’s address that %s of the knoc excludes', async (_name, own, partner, rfcType) => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      ipExclusions: { RestrictionType: 'RFC1918', RfcType: rfcType, Ranges: [] },
    });
    await agent.connect();
    const alice = await signIn(own);
    const response = await grant(alice, aclId, [attested(partner)]);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the add');
    expect(added()).toEqual([own]);
  });

  it('ignores the dual-stack answers on a knoc of fixed addresses', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, {
      grantType: { Type: 'specifiedIps', Ips: [{ Ip: '203.0.113.5' }] },
    });
    await agent.connect();
    const alice = await signIn();
    const response = await grant(alice, aclId, [attested(ALICE_V6)]);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the add');
    expect(added()).toEqual(['203.0.113.5']);
  });

  it('ends both entries on revoke, and names both in the audit', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    await agent.connect();
    const alice = await signIn();
    expect((await grant(alice, aclId, [attested(ALICE_V6)])).statusCode).toBe(200);
    await agent.waitFor(() => added().length === 2, 'both adds');
    await settle();

    const response = await revoke(alice, aclId);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => removed().length === 2, 'both removes');
    expect(removed().sort()).toEqual([ALICE_ADDRESS, ALICE_V6]);
    await settle();
    expect((await aclOf(alice, aclId)).Status).toBe(GrantStatus.Revoked);
    expect(await running()).toEqual([]);
    expect(await lastAudit(AuditActions.ClickToRevoke)).toEqual({
      [AuditActions.ClickToRevoke]: expect.objectContaining({ IpAddress: `${ALICE_ADDRESS}, ${ALICE_V6}` }) as object,
    });
  });

  it('ends both entries at the grant’s expiry', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId, { maximumGrantDuration: 300 });
    await agent.connect();
    const alice = await signIn();
    expect((await grant(alice, aclId, [attested(ALICE_V6)])).statusCode).toBe(200);
    await agent.waitFor(() => added().length === 2, 'both adds');
    expect(agent.applies()[0]?.add.map((entry) => entry.ttlSeconds)).toEqual([300, 300]);
    await settle();

    t.clock.advance(300_000);
    await t.ctx.db.updateTable('agents').set({ lastSeen: t.clock.now() }).execute();
    await sweepGrantsOnce(t.ctx);
    await agent.waitFor(() => removed().length === 2, 'both expiry removes');
    expect(removed().sort()).toEqual([ALICE_ADDRESS, ALICE_V6]);
  });
});
