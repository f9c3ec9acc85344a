import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, GrantStatus, type AllowlistRecord } from '@postern/protocol';
import { useTestApp, type LiveTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { basicAuth, givenAllowlistKnoc, givenApiKey, givenGrantRow } from '../test-support/v1-rows.js';
import { recentAudit } from '../audit/audit.js';
import { PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';

const MINUTE = 60_000;
const FIREWALL = '203.0.113.5';

describe.each(bothStores())('published allowlists (%s)', (kind) => {
  const shared = useTestApp(kind);
  /** The app the running test calls: the file's, or for the refusals one of their own (below). */
  let t: LiveTestApp = shared;

  const fetchList = (
    path: string,
    options: { authorization?: string; from?: string; headers?: Record<string, string> } = {},
  ) =>
    t.app.inject({
      method: 'GET',
      url: path,
      remoteAddress: options.from ?? FIREWALL,
      headers: {
        ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
        ...options.headers,
      },
    });
  const urlOf = (knoc: { id: string; token: string }, format: 'txt' | 'json' = 'txt') =>
    `/api/v1/allowlists/${knoc.id}/${knoc.token}.${format}`;

  /** An allowlist knoc and a key that may read it from anywhere. */
  const givenReadableList = async (options: Parameters<typeof givenAllowlistKnoc>[1] = {}) => {
    const knoc = await givenAllowlistKnoc(t.ctx, options);
    const key = await givenApiKey(t.ctx, [`allowlist.read:${knoc.id}`], { name: 'firewall poller' });
    return { knoc, key, auth: basicAuth('apiuser', key.plaintext) };
  };
  const auditOf = async (action: string) =>
    (await recentAudit(t.ctx.db, 100)).flatMap((entry) => (action in entry.Entry ? [entry.Entry[action]] : []));

  describe('with the right key', () => {
    it('serves the running grants as text: comments, then IPv4 and IPv6 in order, single hosts without /32', async () => {
      const { knoc, auth } = await givenReadableList({ description: 'Office VPN' });
      for (const ip of ['198.51.100.20', '2001:db8::7', '192.0.2.0/24', '10.0.0.1/32', '2001:db8::/64', '9.9.9.9']) {
        await givenGrantRow(t.ctx, knoc.id, ip);
      }
      // Two sessions behind one office address: published once.
      await givenGrantRow(t.ctx, knoc.id, '198.51.100.20');

      const response = await fetchList(urlOf(knoc), { authorization: auth });

      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(response.body).toBe(
        [
          '# Postern allowlist for Office VPN',
          `# generated ${new Date(t.clock.now()).toISOString()}`,
          '9.9.9.9',
          '10.0.0.1',
          '192.0.2.0/24',
          '198.51.100.20',
          '2001:db8::/64',
          '2001:db8::7',
          '',
        ].join('\n'),
      );
    });

    it('serves the same addresses as JSON in the data envelope', async () => {
      const { knoc, auth } = await givenReadableList({ description: 'Office VPN' });
      await givenGrantRow(t.ctx, knoc.id, '2001:db8::7');
      await givenGrantRow(t.ctx, knoc.id, '198.51.100.20');

      const response = await fetchList(urlOf(knoc, 'json'), { authorization: auth });

      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.json()).toEqual({
        data: {
          ACLID: knoc.id,
          Description: 'Office VPN',
          Generated: new Date(t.clock.now()).toISOString(),
          Addresses: ['198.51.100.20', '2001:db8::7'],
        } satisfies AllowlistRecord,
      });
    });

    it('leaves out ended grants, expired grants and other knocs’ grants', async () => {
      const { knoc, auth } = await givenReadableList();
      const other = await givenAllowlistKnoc(t.ctx);
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.1');
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.2', { endedAt: t.clock.now() - MINUTE });
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.3', { expiresAt: t.clock.now() + MINUTE });
      await givenGrantRow(t.ctx, other.id, '192.0.2.4');
      t.clock.advance(MINUTE);

      const response = await fetchList(urlOf(knoc, 'json'), { authorization: auth });

      expect(response.json<{ data: AllowlistRecord }>().data.Addresses).toEqual(['192.0.2.1']);
    });

    it('serves an empty list when nothing is granted', async () => {
      const { knoc, auth } = await givenReadableList({ description: 'Quiet' });
      const response = await fetchList(urlOf(knoc), { authorization: auth });
      expect(response.statusCode).toBe(200);
      expect(response.body.split('\n').filter((line) => !line.startsWith('#'))).toEqual(['']);
    });

    it('audits the read with the knoc, the address and the key name, and records the key’s use', async () => {
      const { knoc, key, auth } = await givenReadableList({ description: 'Office VPN' });
      t.clock.advance(MINUTE);

      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(200);

      expect(await auditOf(AuditActions.AllowlistRead)).toEqual([
        { AclDescription: 'Office VPN', IpAddress: FIREWALL, Description: 'firewall poller' },
      ]);
      const row = await t.ctx.db.selectFrom('apiKeys').select('lastUsedAt').where('id', '=', key.id).executeTakeFirst();
      expect(row?.lastUsedAt).toBe(t.clock.now());
      // The consumer health board: by the knoc's name, never its id or the caller's address.
      const { body } = await t.ctx.metrics.scrape();
      expect(body).toContain('postern_allowlist_fetches_total{acl="Office VPN",result="served"} 1\n');
      expect(body).toContain(
        `postern_allowlist_last_fetch_timestamp_seconds{acl="Office VPN"} ${t.clock.now() / 1000}\n`,
      );
    });

    it('marks the published grants Read once the firewall has fetched them', async () => {
      const { knoc, auth } = await givenReadableList();
      const grantId = await givenGrantRow(t.ctx, knoc.id, '198.51.100.1');
      const statusOf = async () =>
        (await t.ctx.db.selectFrom('grants').select('status').where('id', '=', grantId).executeTakeFirstOrThrow())
          .status;
      expect(await statusOf()).toBe(GrantStatus.Published);
      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(200);
      expect(await statusOf()).toBe(GrantStatus.Read);
    });

    it('accepts the key as a Bearer token too', async () => {
      const { knoc, key } = await givenReadableList();
      const response = await fetchList(urlOf(knoc), { authorization: `Bearer ${key.plaintext}` });
      expect(response.statusCode).toBe(200);
    });

    it('is not blocked by the origin check: a GET from another site is still served', async () => {
      const { knoc, auth } = await givenReadableList();
      const response = await fetchList(urlOf(knoc), {
        authorization: auth,
        headers: { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(response.statusCode).toBe(200);
    });
  });

  // The throttle test's sign-in (for a name nobody has) still verifies a password hash.
  describe('refusals', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
    // Which refusals are audited is decided in memory inside the route (at most one entry per
    // address and minute: refusal-audit-gate.ts), which the reset before each test cannot reach, and
    // every test here starts at the same instant: so each gets an app of its own.
    const own = useTestApp(kind, { appPerTest: true });
    beforeEach(() => {
      t = own;
    });
    afterEach(() => {
      t = shared;
    });
    const challenge = 'Basic realm="postern-allowlist"';

    it.each([
      ['a wrong key', (plaintext: string) => basicAuth('apiuser', `${plaintext.slice(0, -2)}xx`)],
      ['a wrong user name', (plaintext: string) => basicAuth('admin', plaintext)],
      ['an empty user name', (plaintext: string) => basicAuth('', plaintext)],
      ['another scheme', (plaintext: string) => `Digest ${plaintext}`],
      ['no credentials at all', () => undefined],
    ])('answers %s with 401 err.unauthorised and the Basic challenge', async (_case, authorization) => {
      const { knoc, key } = await givenReadableList();
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.1');

      const response = await fetchList(urlOf(knoc), { authorization: authorization(key.plaintext) });

      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(challenge);
      expect(response.json()).toEqual({ Err: ErrorCodes.unauthorised });
      expect(response.body).not.toContain('192.0.2.1');
    });

    it('refuses a key whose scope names another knoc with 401', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx);
      const other = await givenAllowlistKnoc(t.ctx);
      const key = await givenApiKey(t.ctx, [`allowlist.read:${other.id}`, 'user.sessions']);
      const response = await fetchList(urlOf(knoc), { authorization: basicAuth('apiuser', key.plaintext) });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(challenge);
    });

    it('refuses an expired key with 401', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx);
      const key = await givenApiKey(t.ctx, [`allowlist.read:${knoc.id}`], { expiresAt: t.clock.now() + MINUTE });
      const auth = basicAuth('apiuser', key.plaintext);
      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(200);
      t.clock.advance(MINUTE);
      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(401);
    });

    it('refuses a good key used from outside its AllowedFrom with 403, and serves it from inside', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx);
      const key = await givenApiKey(t.ctx, [`allowlist.read:${knoc.id}`], {
        allowedFrom: [{ Prefix: '10.0.0.0/8', Note: 'inside' }],
      });
      const auth = basicAuth('apiuser', key.plaintext);

      const outside = await fetchList(urlOf(knoc), { authorization: auth, from: FIREWALL });
      expect(outside.statusCode).toBe(403);
      expect(outside.json()).toEqual({ Err: ErrorCodes.apiKeyAddressNotAllowed });
      expect((await fetchList(urlOf(knoc), { authorization: auth, from: '10.1.2.3' })).statusCode).toBe(200);
      expect((await fetchList(urlOf(knoc), { authorization: auth, from: '::ffff:10.1.2.3' })).statusCode).toBe(200);
    });

    it('answers a wrong token, an unknown knoc, a knoc without a token and a non-allowlist knoc with one 404', async () => {
      const { knoc, auth } = await givenReadableList();
      const tokenless = await givenAllowlistKnoc(t.ctx, { token: '' });
      const ipset = await givenAllowlistKnoc(t.ctx, { backendType: 'ipset' });
      const mislabelled = await givenAllowlistKnoc(t.ctx, { config: { ipset: { V4SetName: 'x' } } });
      const keyForAll = await givenApiKey(t.ctx, [
        `allowlist.read:${knoc.id}`,
        `allowlist.read:${tokenless.id}`,
        `allowlist.read:${ipset.id}`,
        `allowlist.read:${mislabelled.id}`,
      ]);
      const paths = [
        `/api/v1/allowlists/${knoc.id}/${knoc.token.slice(0, -1)}.txt`,
        `/api/v1/allowlists/${knoc.id}/.txt`,
        `/api/v1/allowlists/01890000-0000-7000-8000-000000000000/${knoc.token}.txt`,
        `/api/v1/allowlists/${tokenless.id}/.json`,
        urlOf(ipset),
        urlOf(mislabelled),
      ];
      for (const path of paths) {
        for (const authorization of [auth, basicAuth('apiuser', keyForAll.plaintext), undefined]) {
          const response = await fetchList(path, { authorization });
          expect(response.statusCode, path).toBe(404);
          expect(response.json(), path).toEqual({ Err: ErrorCodes.notFound });
          expect(response.headers['www-authenticate'], path).toBeUndefined();
        }
      }
    });

    it('audits refusals with their reason, at most once per address per minute', async () => {
      const { knoc, key } = await givenReadableList({ description: 'Office VPN' });
      const wrong = basicAuth('apiuser', `${key.plaintext.slice(0, -2)}xx`);
      for (let i = 0; i < 5; i += 1) await fetchList(urlOf(knoc), { authorization: wrong });
      await fetchList(urlOf(knoc), { authorization: wrong, from: '198.51.100.99' });

      expect(await auditOf(AuditActions.AllowlistReadRefused)).toEqual([
        { AclDescription: 'Office VPN', IpAddress: '198.51.100.99', ErrorMessage: 'unknown API key' },
        { AclDescription: 'Office VPN', IpAddress: FIREWALL, ErrorMessage: 'unknown API key' },
      ]);

      t.clock.advance(MINUTE);
      await fetchList(`/api/v1/allowlists/${knoc.id}/nope.txt`, { authorization: wrong });
      const [newest] = await auditOf(AuditActions.AllowlistReadRefused);
      expect(newest).toEqual({
        AclDescription: 'Office VPN',
        IpAddress: FIREWALL,
        ErrorMessage: 'unknown allowlist or wrong token',
      });
    });

    it('audits the refusals of one IPv6 /64 once a minute, as one address', async () => {
      const { knoc, key } = await givenReadableList({ description: 'Office VPN' });
      const wrong = basicAuth('apiuser', `${key.plaintext.slice(0, -2)}xx`);
      for (let i = 1; i <= 5; i += 1)
        await fetchList(urlOf(knoc), { authorization: wrong, from: `2001:db8:1:2::${i}` });
      await fetchList(urlOf(knoc), { authorization: wrong, from: '2001:db8:1:3::1' });

      expect(await auditOf(AuditActions.AllowlistReadRefused)).toEqual([
        { AclDescription: 'Office VPN', IpAddress: '2001:db8:1:3::1', ErrorMessage: 'unknown API key' },
        { AclDescription: 'Office VPN', IpAddress: '2001:db8:1:2::1', ErrorMessage: 'unknown API key' },
      ]);
    });

    it('names the key in the audit when a real key was refused', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx, { description: 'Office VPN' });
      const key = await givenApiKey(t.ctx, [`allowlist.read:${knoc.id}`], {
        name: 'branch firewall',
        allowedFrom: [{ Prefix: '10.0.0.0/8', Note: 'inside' }],
      });
      await fetchList(urlOf(knoc), { authorization: basicAuth('apiuser', key.plaintext) });
      expect(await auditOf(AuditActions.AllowlistReadRefused)).toEqual([
        {
          AclDescription: 'Office VPN',
          IpAddress: FIREWALL,
          ErrorMessage: 'API key not allowed from this address',
          Description: 'branch firewall',
        },
      ]);
      const row = await t.ctx.db.selectFrom('apiKeys').select('lastUsedAt').where('id', '=', key.id).executeTakeFirst();
      expect(row?.lastUsedAt).toBeNull();
    });

    it('neither audits nor counts a bare request without credentials (the first half of Basic auth)', async () => {
      const { knoc, auth } = await givenReadableList();
      for (let i = 0; i < 25; i += 1) expect((await fetchList(urlOf(knoc))).statusCode).toBe(401);
      expect(await auditOf(AuditActions.AllowlistReadRefused)).toEqual([]);
      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(200);
    });

    it('throttles an address after 20 failures: 429 with Retry-After even for the right key, until the block ends', async () => {
      const { knoc, key, auth } = await givenReadableList();
      const wrong = basicAuth('apiuser', `${key.plaintext.slice(0, -2)}xx`);
      for (let i = 0; i < 20; i += 1)
        expect((await fetchList(urlOf(knoc), { authorization: wrong })).statusCode).toBe(401);

      const blocked = await fetchList(urlOf(knoc), { authorization: auth });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.headers['retry-after']).toBe(String(15 * 60));
      expect(blocked.json()).toMatchObject({ Err: ErrorCodes.tooManyRequests });
      // Another address is not affected, and the block does not reach the sign-in form.
      expect((await fetchList(urlOf(knoc), { authorization: auth, from: '198.51.100.1' })).statusCode).toBe(200);
      const signIn = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        remoteAddress: FIREWALL,
        payload: { UserName: 'nobody', Password: 'wrong password' },
      });
      expect(signIn.statusCode).not.toBe(429);

      t.clock.advance(15 * MINUTE);
      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(200);
    });

    it('counts wrong tokens too, so tokens cannot be guessed at speed', async () => {
      const { knoc, auth } = await givenReadableList();
      for (let i = 0; i < 20; i += 1) {
        expect((await fetchList(`/api/v1/allowlists/${knoc.id}/guess${i}.txt`)).statusCode).toBe(404);
      }
      expect((await fetchList(urlOf(knoc), { authorization: auth })).statusCode).toBe(429);
    });
  });

  describe('access by address (AllowAccessByIp)', () => {
    it('serves an address inside AllowedIpAddresses without a key, audited as such', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx, {
        description: 'Partner',
        allowAccessByIp: true,
        allowedIpAddresses: ['203.0.113.0/28', '2001:db8:f::/48'],
      });
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.1');

      for (const from of [FIREWALL, '2001:db8:f::1']) {
        const response = await fetchList(urlOf(knoc), { from });
        expect(response.statusCode, from).toBe(200);
        expect(response.body).toContain('\n192.0.2.1\n');
      }
      expect(await auditOf(AuditActions.AllowlistRead)).toEqual([
        { AclDescription: 'Partner', IpAddress: '2001:db8:f::1', Description: 'AllowAccessByIp' },
        { AclDescription: 'Partner', IpAddress: FIREWALL, Description: 'AllowAccessByIp' },
      ]);
    });

    it('refuses an address outside AllowedIpAddresses that brings no key', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx, { allowAccessByIp: true, allowedIpAddresses: ['203.0.113.0/28'] });
      const response = await fetchList(urlOf(knoc), { from: '203.0.113.16' });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Basic realm="postern-allowlist"');
    });

    it('ignores AllowedIpAddresses while AllowAccessByIp is off', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx, { allowAccessByIp: false, allowedIpAddresses: ['0.0.0.0/0'] });
      expect((await fetchList(urlOf(knoc))).statusCode).toBe(401);
    });

    it('still serves an allowed address that sends a wrong key, and a key user from elsewhere', async () => {
      const knoc = await givenAllowlistKnoc(t.ctx, { allowAccessByIp: true, allowedIpAddresses: ['203.0.113.0/28'] });
      const key = await givenApiKey(t.ctx, [`allowlist.read:${knoc.id}`], { name: 'remote' });
      expect((await fetchList(urlOf(knoc), { authorization: basicAuth('apiuser', 'pst_wrong') })).statusCode).toBe(200);
      const remote = await fetchList(urlOf(knoc), {
        authorization: basicAuth('apiuser', key.plaintext),
        from: '198.51.100.1',
      });
      expect(remote.statusCode).toBe(200);
      const [newest] = await auditOf(AuditActions.AllowlistRead);
      expect(newest?.Description).toBe('remote');
    });
  });

  describe('conditional requests', () => {
    it('sends a strong ETag and no-cache, and answers a matching If-None-Match with 304 and no body', async () => {
      const { knoc, auth } = await givenReadableList();
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.1');

      const first = await fetchList(urlOf(knoc), { authorization: auth });
      const etag = first.headers.etag;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
      expect(first.headers['cache-control']).toBe('no-cache');

      t.clock.advance(MINUTE);
      const again = await fetchList(urlOf(knoc), { authorization: auth, headers: { 'if-none-match': String(etag) } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      // A list of tags, or a weak form of ours, matches too (RFC 9110 weak comparison).
      for (const header of [`"other", ${String(etag)}`, `W/${String(etag)}`, '*']) {
        const response = await fetchList(urlOf(knoc), { authorization: auth, headers: { 'if-none-match': header } });
        expect(response.statusCode, header).toBe(304);
      }
      // Every retrieval is audited, 304s included.
      expect(await auditOf(AuditActions.AllowlistRead)).toHaveLength(5);
    });

    it('changes the ETag when the addresses change, not when only time passes', async () => {
      const { knoc, auth } = await givenReadableList();
      await givenGrantRow(t.ctx, knoc.id, '192.0.2.1');
      const etagNow = async (format: 'txt' | 'json' = 'txt') =>
        (await fetchList(urlOf(knoc, format), { authorization: auth })).headers.etag;

      const before = await etagNow();
      t.clock.advance(MINUTE);
      expect(await etagNow()).toBe(before);
      expect(await etagNow('json')).not.toBe(before);

      await givenGrantRow(t.ctx, knoc.id, '192.0.2.2');
      const after = await etagNow();
      expect(after).not.toBe(before);
      const refreshed = await fetchList(urlOf(knoc), {
        authorization: auth,
        headers: { 'if-none-match': String(before) },
      });
      expect(refreshed.statusCode).toBe(200);
      expect(refreshed.body).toContain('\n192.0.2.2\n');
    });

    it('answers 304 on the JSON file too', async () => {
      const { knoc, auth } = await givenReadableList();
      const first = await fetchList(urlOf(knoc, 'json'), { authorization: auth });
      const again = await fetchList(urlOf(knoc, 'json'), {
        authorization: auth,
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    });
  });
});
