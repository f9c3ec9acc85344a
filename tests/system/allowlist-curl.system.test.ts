import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, REPO_ROOT } from '@postern/test-support';
import { startPosternServer, type PosternServer, type StoreChoice } from './support/postern-server.js';
import { AdminApi } from './support/admin-api.js';
import { missingBuild, requireTool } from './support/requirements.js';
import { curl, missingCommands } from './support/tools.js';

/**
 * Issue 4 item 8 as a firewall sees it: the built server publishes an allowlist knoc created through
 * the admin wizard, a user's real grant and an admin's break-glass grant appear in it, and curl
 * fetches it with the right key (200), a wrong key (401), a key restricted to 10.0.0.0/8 (403), and
 * without a key from an address the knoc allows (curl --interface 127.0.0.2, loopback only).
 */

const MAIN = path.join(REPO_ROOT, 'apps/server/dist/main.js');
const USER_PASSWORD = 'correct horse battery';
/**
 * Where the user's browser is (RFC 5737), as the server learns it from X-Forwarded-For: the request
 * really comes from 127.0.0.1, a trusted proxy here, and loopback itself is never granted.
 */
const USER_ADDRESS = '198.51.100.10';

/** A licence signing key made and a licence issued by the built CLI, as a vendor would. */
function issueLicence(): { publicKey: string; text: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-licence-'));
  try {
    const keyFile = path.join(dir, 'licence.key');
    const run = (args: string[]) => execFileSync(process.execPath, [MAIN, ...args], { env: cleanEnv(['POSTERN_']) });
    const keygen = run(['licence', 'keygen', '--no-trust', '--out', keyFile]).toString();
    const publicKey = /Public key: (\S+)/.exec(keygen)?.[1] ?? '';
    const text = run(['licence', 'issue', '--key', keyFile, '--users', '10']).toString().trim();
    return { publicKey, text };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(['sqlite', 'postgres'] as const)('allowlists fetched with curl (%s)', (store: StoreChoice) => {
  const missing = missingBuild(REPO_ROOT) ?? missingCommands({ curl: 'curl' });
  let server: PosternServer | undefined;
  let listUrl = '';
  let jsonUrl = '';
  let key = '';
  let restrictedKey = '';
  let revokeOwnGrant: () => Promise<void> = () => Promise.resolve();

  beforeAll(async () => {
    if (missing !== null) return;
    const licence = issueLicence();
    server = await startPosternServer(
      { POSTERN_LICENCE_PUBLIC_KEYS: licence.publicKey, POSTERN_TRUSTED_PROXIES: '127.0.0.1' },
      store,
    );
    const admin = await AdminApi.signIn(server);
    await admin.call('PUT', '/api/admin/settings/license', { License: licence.text });
    const carol = (await admin.createLocalUser('carol', USER_PASSWORD, { TOTPEnabled: false })) as {
      User: { ID: string };
    };
    const userId = carol.User.ID;

    const knoc = await admin.call<{ KnocID: string; ApiKey: { PlaintextKey: string }; AllowlistURL: string }>(
      'POST',
      '/api/admin/knocs',
      {
        Backend: { Name: 'published list', Config: { allowlist: {} } },
        ApiKey: { Option: 'new', Name: 'partner firewall' },
        Knoc: {
          Description: 'Partner firewall',
          ClickToGrant: true,
          Config: { allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['127.0.0.2/32'] } },
        },
        UserIDs: [userId],
      },
    );
    listUrl = new URL(knoc.AllowlistURL, server.url).toString();
    jsonUrl = listUrl.replace(/\.txt$/, '.json');
    key = knoc.ApiKey.PlaintextKey;
    restrictedKey = (
      await admin.call<{ PlaintextKey: string }>('POST', '/api/admin/api-keys', {
        Name: 'elsewhere',
        Scopes: [`allowlist.read:${knoc.KnocID}`],
        AllowedFrom: [{ Prefix: '10.0.0.0/8', Note: 'another network' }],
      })
    ).PlaintextKey;

    // Carol grants herself access from where she is; an admin adds a break-glass address.
    const cookie = await signInUser(server, 'carol');
    const granted = await fetch(`${server.url}/api/grant`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-forwarded-for': USER_ADDRESS },
      body: JSON.stringify({ ACLID: knoc.KnocID }),
    });
    if (granted.status !== 200) throw new Error(`grant failed: ${granted.status} ${await granted.text()}`);
    await admin.call('POST', `/api/admin/acls/${knoc.KnocID}/grants`, {
      IP: '192.0.2.44',
      Minutes: 30,
      Reason: 'system test',
    });
    const running = server;
    revokeOwnGrant = async () => {
      const revoked = await fetch(`${running.url}/api/sessions/current/granted-acls/${knoc.KnocID}`, {
        method: 'DELETE',
        headers: { cookie, origin: running.url, 'x-forwarded-for': USER_ADDRESS },
      });
      if (revoked.status !== 200) throw new Error(`revoke failed: ${revoked.status} ${await revoked.text()}`);
    };
  });
  afterAll(async () => {
    await server?.stop();
  });
  beforeEach((context) => requireTool(context, missing));

  it('serves the granted addresses to the right key: 200, text/plain, one address a line', () => {
    const answer = curl(listUrl, ['-u', `apiuser:${key}`]);

    expect(answer.status, answer.body).toBe(200);
    expect(answer.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-cache');
    const lines = answer.body.trimEnd().split('\n');
    expect(lines[0]).toBe('# Postern allowlist for Partner firewall');
    expect(lines[1]).toMatch(/^# generated \d{4}-\d\d-\d\dT/);
    expect(lines.slice(2)).toEqual(['192.0.2.44', USER_ADDRESS]);
  });

  it('serves the same list as JSON', () => {
    const answer = curl(jsonUrl, ['-u', `apiuser:${key}`]);
    expect(answer.status).toBe(200);
    expect((JSON.parse(answer.body) as { data: { Addresses: string[] } }).data.Addresses).toEqual([
      '192.0.2.44',
      USER_ADDRESS,
    ]);
  });

  it('answers a matching If-None-Match with 304 and no body', () => {
    const first = curl(listUrl, ['-u', `apiuser:${key}`]);
    const etag = first.headers.etag ?? '';
    expect(etag).toMatch(/^".+"$/);
    const again = curl(listUrl, ['-u', `apiuser:${key}`, '-H', `If-None-Match: ${etag}`]);
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
  });

  it('refuses a wrong key with 401 and the Basic challenge', () => {
    const answer = curl(listUrl, ['-u', `apiuser:${key.slice(0, -3)}abc`]);
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Basic realm="postern-allowlist"');
    expect(answer.body).not.toContain(USER_ADDRESS);
  });

  it('refuses a key restricted to 10.0.0.0/8 with 403', () => {
    const answer = curl(listUrl, ['-u', `apiuser:${restrictedKey}`]);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ Err: 'err.apiKeyAddressNotAllowed' });
  });

  it('serves 127.0.0.2 without a key (AllowAccessByIp) and asks 127.0.0.1 for one', () => {
    const allowed = curl(listUrl, ['--interface', '127.0.0.2']);
    expect(allowed.status, allowed.body).toBe(200);
    expect(allowed.body).toContain(`\n${USER_ADDRESS}\n`);
    const other = curl(listUrl);
    expect(other.status).toBe(401);
  });

  it('answers a wrong token with 404', () => {
    const answer = curl(listUrl.replace(/[^/]{4}\.txt$/, 'xxxx.txt'), ['-u', `apiuser:${key}`]);
    expect(answer.status).toBe(404);
  });

  it('drops the user’s address once she revokes her grant', async () => {
    await revokeOwnGrant();
    const answer = curl(listUrl, ['-u', `apiuser:${key}`]);
    expect(answer.status).toBe(200);
    expect(answer.body.trimEnd().split('\n').slice(2)).toEqual(['192.0.2.44']);
  });
});

/** Signs a local user in through the API and returns the session cookie. */
async function signInUser(server: PosternServer, userName: string): Promise<string> {
  const response = await fetch(`${server.url}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ UserName: userName, Password: USER_PASSWORD, KioskMode: false }),
  });
  const cookie = response.headers.getSetCookie().find((value) => value.includes('postern_session='));
  if (response.status !== 200 || cookie === undefined) {
    throw new Error(`user sign-in failed: ${response.status} ${await response.text()}`);
  }
  return cookie.split(';')[0] ?? '';
}
