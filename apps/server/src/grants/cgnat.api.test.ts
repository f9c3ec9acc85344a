import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes, IP_ATTESTATION_TTL_MS } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser } from '../test-support/factories.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { FakeAgent } from '../test-support/fake-agent.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { givenIpsetKnocOfUser } from '../test-support/knoc-factories.js';
import { writeSetting } from '../settings/settings.js';
import { ipAttestor } from '../ip-discovery/attestation.js';

/**
 * Issue 10 item 3: on a CGNATOpen knoc, a grant opens the request's own address and the addresses
 * the discovery responder attested for this browser, and nothing else; addresses no grant may open
 * are refused even when attested. A refused address is a 400 naming the field, with nothing stored
 * and nothing sent to the agent.
 */

/** The caller's own address (RFC 5737 documentation range), as the request comes from it. */
const OWN = '192.0.2.1';
/** Addresses no grant may open, however they were learned. */
const SPECIAL = ['127.0.0.1', '169.254.169.254', '::1', 'fe80::1', '224.0.0.1', '0.0.0.0', 'fd00:ec2::254'];

type Endpoint = '/api/grant' | '/api/log_ips';

/** The entry with the last character of its attestation's MAC changed. */
function tampered(entry: { IP: string; Port: number; Attestation: string }) {
  const last = entry.Attestation.slice(-1);
  return { ...entry, Attestation: `${entry.Attestation.slice(0, -1)}${last === 'A' ? 'B' : 'A'}` };
}

/** One licensed app for the file, listening for the FakeAgents (both describes use it). */
const t = useTestApp('sqlite', { config: { licencePublicKeys: TEST_LICENCE_KEYS }, listen: true });

describe('CGNAT grants (sqlite)', () => {
  let agent: FakeAgent;
  let aclId: string;
  let cookie: string;

  beforeEach(async () => {
    await givenLicence(t.ctx);
    const user = await givenUser(t.ctx, { userName: 'alice' });
    const created = await givenAgent(t.ctx, { name: 'edge' });
    aclId = (await givenIpsetKnocOfUser(t.ctx, created.id, user.id, { ClickToGrant: true, CGNATOpen: true })).id;
    agent = new FakeAgent(t.baseUrl, created.token);
    await agent.connect();
    cookie = await givenUserSession(t, user);
  });
  afterEach(async () => {
    await agent.disconnect();
  });

  /** What the responder would have answered this browser on `port`, issued `ageMs` ago. */
  const attested = (IP: string, Port = 8000, ageMs = 0) => ({
    IP,
    Port,
    Attestation: ipAttestor(t.ctx.secrets).issue({ ip: IP, port: Port }, t.clock.now() - ageMs),
  });
  const post = (url: Endpoint, IPs: object[], from = OWN) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie },
      remoteAddress: from,
      payload: url === '/api/grant' ? { ACLID: aclId, IPs } : { IPs },
    });
  const added = () => agent.applies().flatMap((apply) => apply.add.map((entry) => entry.ip));
  const storedAddresses = async () => ({
    grants: (await t.ctx.db.selectFrom('grants').select('ip').execute()).map((row) => row.ip).sort(),
    logged: (await t.ctx.db.selectFrom('sessionIps').select('ip').execute()).map((row) => row.ip).sort(),
  });

  /**
   * Asserts a refused request left no trace: nothing stored, and the agent's first add after it (a
   * plain grant from the caller's own address, which messages follow in order) carries only that.
   */
  async function expectNothingGranted(): Promise<void> {
    expect(await storedAddresses()).toEqual({ grants: [], logged: [] });
    const plain = await post('/api/grant', []);
    expect(plain.statusCode, plain.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the plain grant');
    expect(added()).toEqual([OWN]);
  }

  it.each([
    ['/api/grant', '8.8.8.8'],
    ['/api/grant', '2001:db8::1'],
    ['/api/log_ips', '8.8.8.8'],
    ['/api/log_ips', '2001:db8::1'],
  ] as const)('%s refuses %s without an attestation, naming the field, and grants nothing', async (url, ip) => {
    const response = await post(url, [attested('198.51.100.9'), { Port: 3389, IP: ip }]);

    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.ipAddressNotSeen, Extra: 'IPs.1.IP' });
    await expectNothingGranted();
  });

  it.each(SPECIAL.flatMap((ip) => (['/api/grant', '/api/log_ips'] as const).map((url) => [url, ip] as const)))(
    '%s refuses %s even with an attestation',
    async (url, ip) => {
      const response = await post(url, [attested(ip)]);

      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.ipAddressNotGrantable, Extra: 'IPs.0.IP' });
      await expectNothingGranted();
    },
  );

  it.each([
    ['expired', () => attested('198.51.100.9', 8000, IP_ATTESTATION_TTL_MS + 1)],
    ['tampered', () => tampered(attested('198.51.100.9'))],
    ['for another address', () => ({ ...attested('198.51.100.10'), IP: '198.51.100.9' })],
    ['for another port', () => ({ ...attested('198.51.100.9', 443), Port: 8000 })],
    ['not a token', () => ({ IP: '198.51.100.9', Port: 8000, Attestation: 'v1.0.x' })],
  ])('refuses an address whose attestation is %s', async (_name, entry) => {
    for (const url of ['/api/grant', '/api/log_ips'] as const) {
      const response = await post(url, [entry()]);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.ipAddressNotSeen, Extra: 'IPs.0.IP' });
    }
    await expectNothingGranted();
  });

  it('opens the caller’s address and the attested ones, each written canonically', async () => {
    const response = await post('/api/grant', [
      attested('::ffff:1.2.3.4', 443),
      attested('2001:DB8:0::5', 222),
      // The request's own address needs no attestation.
      { Port: 3389, IP: OWN },
    ]);
    expect(response.statusCode, response.body).toBe(200);

    await agent.waitFor(() => added().length === 3, 'the adds');
    expect(added().sort()).toEqual(['1.2.3.4', '192.0.2.1', '2001:db8::5']);
    expect((await storedAddresses()).grants).toEqual(['1.2.3.4', '192.0.2.1', '2001:db8::5']);
  });

  it('logs attested addresses and extends a running grant to them at once', async () => {
    expect((await post('/api/grant', [])).statusCode).toBe(200);
    await agent.waitFor(() => added().length === 1, 'the grant');

    const response = await post('/api/log_ips', [attested('::ffff:102:304'), { Port: 443, IP: OWN }]);
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => added().includes('1.2.3.4'), 'the logged address');
    expect((await storedAddresses()).logged).toEqual(['1.2.3.4', OWN]);
  });

  it('refuses a grant from the caller’s own address when no grant may open it', async () => {
    const response = await post('/api/grant', [], '127.0.0.1');

    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.ipAddressNotGrantable });
    await expectNothingGranted();
  });

  describe('with DiscoverIPTrustUnattested on', () => {
    beforeEach(async () => {
      await writeSetting(t.ctx.db, 'DiscoverIPTrustUnattested', true, t.clock.now());
    });

    it('accepts addresses without an attestation, as an external DiscoverIPURL reports them', async () => {
      const response = await post('/api/grant', [{ Port: 443, IP: '198.51.100.9' }]);
      expect(response.statusCode, response.body).toBe(200);
      await agent.waitFor(() => added().length === 2, 'the adds');
      expect(added().sort()).toEqual([OWN, '198.51.100.9']);

      const logged = await post('/api/log_ips', [{ Port: 8000, IP: '2001:db8::9' }]);
      expect(logged.statusCode, logged.body).toBe(200);
      await agent.waitFor(() => added().includes('2001:db8::9'), 'the logged address');
    });

    it.each(SPECIAL)('still refuses %s', async (ip) => {
      for (const url of ['/api/grant', '/api/log_ips'] as const) {
        const response = await post(url, [{ Port: 443, IP: ip }]);
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ Err: ErrorCodes.ipAddressNotGrantable, Extra: 'IPs.0.IP' });
      }
      await expectNothingGranted();
    });
  });

  it('refuses something that is not one address, naming the field', async () => {
    for (const IP of ['10.0.0.0/8', 'fe80::1%eth0', 'intranet.example']) {
      const response = await post('/api/log_ips', [{ Port: 443, IP }]);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidIpAddress, Extra: 'IPs.0.IP' });
    }
  });

  it('refuses a break-glass grant to an address no grant may open', async () => {
    const admin = adminClient(t.app, await givenAdminSession(t));
    for (const IP of SPECIAL) {
      const { status, body } = await admin.post(`/api/admin/acls/${aclId}/grants`, {
        IP,
        Minutes: 30,
        Reason: 'vendor support call',
      });
      expect(status, IP).toBe(400);
      expect(body).toEqual({ Err: ErrorCodes.ipAddressNotGrantable, Extra: 'IP' });
    }
    await expectNothingGranted();
  });
});

describe('addresses a browser reports to a knoc without CGNATOpen (sqlite)', () => {
  let agent: FakeAgent;

  afterEach(async () => {
    await agent.disconnect();
  });

  it('are not used, so they are not checked either: only the caller’s address is opened', async () => {
    await givenLicence(t.ctx);
    const user = await givenUser(t.ctx, { userName: 'bob' });
    const created = await givenAgent(t.ctx, { name: 'edge' });
    const knoc = await givenIpsetKnocOfUser(t.ctx, created.id, user.id, { ClickToGrant: true, CGNATOpen: false });
    agent = new FakeAgent(t.baseUrl, created.token);
    await agent.connect();
    const cookie = await givenUserSession(t, user);

    const response = await t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie },
      remoteAddress: OWN,
      payload: { ACLID: knoc.id, IPs: [{ Port: 443, IP: '8.8.8.8' }] },
    });
    expect(response.statusCode, response.body).toBe(200);
    await agent.waitFor(() => agent.applies().length === 1, 'the add');
    expect(agent.applies()[0]?.add.map((entry) => entry.ip)).toEqual([OWN]);
  });
});
