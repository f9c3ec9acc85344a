import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { newContext } from './support/browser.js';
import { missingNetnsSupport } from './support/netns.js';
import { NAMESPACE_ADDRESS, startNamespacedPortal, type NamespacedPortal } from './support/namespaced-portal.js';
import { missingBuild, missingChromium, requireTool } from './support/requirements.js';
import {
  PORTAL_SETTINGS,
  aclCard,
  createUserWithAcls,
  installLicence,
  signInToDashboard,
} from './support/user-portal.js';

/**
 * IP discovery as a browser does it (spec section 7): Chromium asks the built-in responder for its
 * address past the page's Content-Security-Policy, posts the attested answer to /api/log_ips, and a
 * grant on a CGNATOpen knoc opens that address beside the one the portal sees. An address without the
 * responder's attestation is refused (issue 10 item 3).
 */

describe('IP discovery from the browser', () => {
  /** One of the spec's discovery ports; the built-in responder listens on it (and only on it). */
  const DISCOVERY_PORT = 8000;
  /**
   * Where the portal believes the browser is: X-Forwarded-For says so, as a trusted reverse proxy
   * would, while the discovery port is reached directly from NAMESPACE_ADDRESS — two addresses for
   * one person, as behind carrier-grade NAT.
   */
  const PORTAL_SEES = '198.51.100.23';
  // Chromium and the server share a namespace: on the host's loopback, the responder could only ever
  // see 127.0.0.1, which no grant may open.
  const missing = missingChromium() ?? missingBuild(REPO_ROOT) ?? missingNetnsSupport();
  let portal: NamespacedPortal | undefined;
  let branch = { id: '', listUrl: '', key: '' };

  beforeAll(async () => {
    if (missing !== null) return;
    portal = await startNamespacedPortal({ ...PORTAL_SETTINGS, POSTERN_IP_DISCOVERY_PORTS: String(DISCOVERY_PORT) });
    const admin = await AdminApi.signIn(portal.server);
    await installLicence(admin);
    const knoc = await admin.call<{ KnocID: string; ApiKey: { PlaintextKey: string }; AllowlistURL: string }>(
      'POST',
      '/api/admin/knocs',
      {
        Backend: { Name: 'published list', Config: { allowlist: {} } },
        ApiKey: { Option: 'new', Name: 'branch firewall' },
        Knoc: {
          Description: 'Branch office',
          ClickToGrant: true,
          CGNATOpen: true,
          Config: { allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['192.0.2.10/32'] } },
        },
      },
    );
    branch = {
      id: knoc.KnocID,
      listUrl: new URL(knoc.AllowlistURL, portal.server.url).toString().replace(/\.txt$/, '.json'),
      key: knoc.ApiKey.PlaintextKey,
    };
    await createUserWithAcls(admin, 'roamer', [branch.id]);
    await admin.call('PUT', '/api/admin/settings/config', {
      DiscoverIP: true,
      // No DiscoverIPURL: the built-in responder, on the portal's own host name.
      DiscoverIPURL: '',
      DebugMode: false,
      GELFListenerURL: '',
      KioskSessionDuration: 30,
    });
  });
  afterAll(async () => {
    await portal?.dispose();
  });
  beforeEach((context) => requireTool(context, missing));

  it('asks the built-in responder past the page’s CSP, and its attested answer opens that address too', async () => {
    if (portal === undefined) throw new Error('the portal did not start');
    const { browser, browserUrl } = portal;
    const page = await (await newContext(browser)).newPage();
    // Only the portal's requests carry the header: on the cross-origin probe it would need a CORS
    // preflight the responder rightly refuses.
    await page.route(`${browserUrl}/**`, (route) =>
      route.continue({ headers: { ...route.request().headers(), 'x-forwarded-for': PORTAL_SEES } }),
    );
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    const posted = page.waitForRequest(
      (request) => request.method() === 'POST' && new URL(request.url()).pathname === '/api/log_ips',
      { timeout: 20_000 },
    );
    await signInToDashboard(page, browserUrl, 'roamer');
    const request = await posted;
    expect(request.postDataJSON()).toEqual({
      IPs: [{ Port: DISCOVERY_PORT, IP: NAMESPACE_ADDRESS, Attestation: expect.stringMatching(/^v1\./) as string }],
    });
    expect((await request.response())?.status()).toBe(200);
    expect(blocked).toEqual([]);

    // The same address without the responder's signature: this request was never seen using it.
    const unsigned = await page.evaluate(
      async (entry) => {
        const response = await fetch('/api/log_ips', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ IPs: [entry] }),
        });
        return { status: response.status, body: await response.json() };
      },
      { Port: DISCOVERY_PORT, IP: NAMESPACE_ADDRESS },
    );
    expect(unsigned).toEqual({ status: 400, body: { Err: 'err.ipAddressNotSeen', Extra: 'IPs.0.IP' } });

    // A grant opens the address the portal sees and the attested one; the firewall's list shows both.
    const card = aclCard(page, 'Branch office');
    await card.getByRole('button', { name: 'Grant Access' }).click();
    await card.getByRole('button', { name: 'Revoke Access' }).waitFor({ timeout: 15_000 });
    const published = await fetch(branch.listUrl, {
      headers: { authorization: `Basic ${Buffer.from(`apiuser:${branch.key}`).toString('base64')}` },
    });
    expect(published.status).toBe(200);
    expect(((await published.json()) as { data: { Addresses: string[] } }).data.Addresses).toEqual([
      NAMESPACE_ADDRESS,
      PORTAL_SEES,
    ]);
  });
});
