import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { writeSetting } from '../settings/settings.js';

/**
 * Issue 33 item 3: the IPv4-only and IPv6-only discovery URLs (DiscoverIPv4URL, DiscoverIPv6URL)
 * reach browsers as the system status's IPv4Api and IPv6Api, and the page's CSP lets it probe them,
 * only while what they answer can count.
 */
describe.each(bothStores())('dual-stack discovery URLs (%s)', (kind) => {
  const t = useTestApp(kind);
  const V4 = 'http://v4.portal.example';
  const V6 = 'http://v6.portal.example/where';

  const urls = async () => {
    const status = await t.app.inject({
      method: 'GET',
      url: '/api/system_status',
      headers: { host: 'portal.example:8080' },
    });
    const { IPApi, IPv4Api, IPv6Api } = status.json<{ data: { IPApi: string; IPv4Api: string; IPv6Api: string } }>()
      .data;
    return { IPApi, IPv4Api, IPv6Api };
  };
  const connectSources = async () => {
    const page = await t.app.inject({ method: 'GET', url: '/home', headers: { host: 'portal.example:8080' } });
    return /(?:^|;)connect-src ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1]?.split(' ');
  };
  const set = (key: 'DiscoverIP' | 'DiscoverIPTrustUnattested', value: boolean) =>
    writeSetting(t.ctx.db, key, value, t.clock.now());

  it('are offered with the built-in responder running, or with unattested answers trusted, and allowed by the CSP', async () => {
    await writeSetting(t.ctx.db, 'DiscoverIPv4URL', V4, t.clock.now());
    await writeSetting(t.ctx.db, 'DiscoverIPv6URL', V6, t.clock.now());
    // Discovery off: nothing is probed.
    expect(await urls()).toEqual({ IPApi: '', IPv4Api: '', IPv6Api: '' });
    await set('DiscoverIP', true);
    // No responder (no discovery ports) and no trust: the answers could never count.
    expect(await urls()).toEqual({ IPApi: '', IPv4Api: '', IPv6Api: '' });
    expect(await connectSources()).toEqual(["'self'"]);

    t.ctx.config.ipDiscoveryPorts = [8000];
    expect(await urls()).toEqual({ IPApi: 'http://portal.example', IPv4Api: V4, IPv6Api: V6 });
    expect(await connectSources()).toEqual([
      "'self'",
      'http://portal.example:*',
      'http://v4.portal.example:*',
      'http://v6.portal.example:*',
    ]);

    t.ctx.config.ipDiscoveryPorts = [];
    await set('DiscoverIPTrustUnattested', true);
    expect(await urls()).toEqual({ IPApi: '', IPv4Api: V4, IPv6Api: V6 });
  });

  it('offers only the one that is set, and no plain-HTTP one to a portal served over HTTPS', async () => {
    t.ctx.config.ipDiscoveryPorts = [8000];
    await set('DiscoverIP', true);
    await writeSetting(t.ctx.db, 'DiscoverIPv6URL', V6, t.clock.now());
    expect(await urls()).toEqual({ IPApi: 'http://portal.example', IPv4Api: '', IPv6Api: V6 });

    await writeSetting(t.ctx.db, 'DiscoverIPv4URL', 'https://v4.ip.example', t.clock.now());
    t.ctx.config.publicUrl = 'https://access.example.org';
    // The browser would block a plain-HTTP probe from an HTTPS page as mixed content.
    expect(await urls()).toEqual({ IPApi: '', IPv4Api: 'https://v4.ip.example', IPv6Api: '' });
    expect(await connectSources()).toEqual(["'self'", 'https://v4.ip.example:*']);
  });
});
