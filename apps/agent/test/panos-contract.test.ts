import type { AgentKnocOf } from '@postern/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { PanosFake } from './fakes/panos-fake.js';
import { startLoopbackServer } from './support/loopback-server.js';
import { memoryLogger } from './support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import { PanosDriver } from '../src/drivers/vendors/panos/panos-driver.js';

const KEY = 'LUFRPT1-contract-key/7f3a9c==';
const TAG = 'kk-web';
const tls = selfSignedCertificate();

function activeKnoc(fake: PanosFake, acl: Partial<AgentKnocOf<'panos'>['acl']> = {}): AgentKnocOf<'panos'> {
  return contractKnoc('panos', {
    name: 'web',
    url: 'https://intranet',
    backend: { Hostname: fake.hostname, Insecure: true, ApiKey: KEY, VSys: 'vsys2', DeviceGroup: '', MapUser: false },
    acl: { GroupName: 'web', EDLName: '', MapUser: false, SerialNumber: '', ...acl },
  });
}

describeDriverContract('panos (active: User-ID tags)', async () => {
  const fake = await PanosFake.start({ key: KEY, tls, vsys: ['vsys1', 'vsys2'] });
  // Not Postern's: another tool's tag, on its own address and on one Postern also tags.
  fake.register('192.0.2.200', ['admin-quarantine'], { vsys: 'vsys2' });
  fake.register('192.0.2.10', ['admin-quarantine'], { vsys: 'vsys2' });
  const { options, logLines } = contractDriverOptions();
  const driver = new PanosDriver(options);
  return {
    driver,
    knoc: activeKnoc(fake),
    device: {
      owned: () => fake.registered(TAG, { vsys: 'vsys2' }),
      foreign: () =>
        fake
          .registered('admin-quarantine', { vsys: 'vsys2' })
          .map((ip) => `${ip}:${fake.tagsOf(ip, { vsys: 'vsys2' }).includes('admin-quarantine')}`),
      refuse: (ip) => fake.refuseIp(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => {
        fake.key = 'rotated-on-the-firewall';
      },
      requestCount: () => fake.requests.length,
    },
    logLines,
    secrets: [KEY],
    auth: 'static-token',
    refusedCredential: /403.*Invalid Credential/,
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});

describe('panos driver', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function setup(options: { panoramaSerials?: string[]; now?: () => number } = {}) {
    const fake = await PanosFake.start({ key: KEY, tls, vsys: ['vsys1', 'vsys2'], ...options });
    const { logger, lines } = memoryLogger();
    const delays: number[] = [];
    const driver = new PanosDriver({
      logger,
      timeoutMs: 2_000,
      retry: { sleep: (ms) => (delays.push(ms), Promise.resolve()), maxRetryAfterMs: 50, baseMs: 5 },
    });
    closers.push(
      () => fake.close(),
      () => driver.close(),
    );
    return { fake, driver, lines, delays };
  }
  const entry = (ip: string, ttlSeconds = 600, userName = 'ann') => ({ ip, ttlSeconds, userName });

  it('active: registers with the remaining time as tag timeout, sends the key only in X-PAN-KEY, POSTs forms', async () => {
    const now = 5_000_000;
    const { fake, driver } = await setup({ now: () => now });
    expect(await driver.apply(activeKnoc(fake), [entry('192.0.2.1', 90), entry('192.0.2.2', 9_999_999)])).toEqual([
      { ip: '192.0.2.1', ok: true, error: '' },
      { ip: '192.0.2.2', ok: true, error: '' },
    ]);
    expect(fake.expiry('192.0.2.1', TAG, { vsys: 'vsys2' })).toBe(now + 90_000);
    expect(fake.expiry('192.0.2.2', TAG, { vsys: 'vsys2' })).toBe(now + 2_592_000_000);
    // One register for both entries, then one read-back.
    expect(fake.requests.map((r) => [r.method, r.type, r.vsys, r.keyVia])).toEqual([
      ['POST', 'user-id', 'vsys2', 'header'],
      ['POST', 'op', 'vsys2', 'header'],
    ]);
    expect(fake.requests.every((r) => !r.url.includes('key') && r.url === '/api/')).toBe(true);
  });

  it('active: an entry is ok only when the firewall lists it on read-back', async () => {
    // A clock that jumps 5 s per look: a 1 s tag has expired by the time the driver reads it back.
    let now = 1_000_000;
    const { fake, driver } = await setup({ now: () => (now += 5_000) });
    const [outcome] = await driver.apply(activeKnoc(fake), [entry('192.0.2.9', 1)]);
    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toMatch(/registered with tag kk-web but is not listed when read back/);
  });

  it('active: MapUser maps the address to the user, escaped, and a remove logs it out', async () => {
    const { fake, driver } = await setup();
    const knoc = activeKnoc(fake, { MapUser: true });
    const user = `corp\\o'neil <&"admin">`;
    expect((await driver.apply(knoc, [entry('192.0.2.3', 600, user)]))[0]?.ok).toBe(true);
    expect(fake.login('192.0.2.3', { vsys: 'vsys2' })).toEqual({ user, expiresAt: expect.any(Number) as number });
    expect((await driver.remove(knoc, [entry('192.0.2.3', 600, user)]))[0]?.ok).toBe(true);
    expect(fake.login('192.0.2.3', { vsys: 'vsys2' })).toBeUndefined();
    expect(fake.registered(TAG, { vsys: 'vsys2' })).toEqual([]);
  });

  it('active: an address the firewall drops (tag timeout) is gone from list, and apply puts it back', async () => {
    let now = 1_000_000;
    const { fake, driver } = await setup({ now: () => now });
    const knoc = activeKnoc(fake);
    await driver.apply(knoc, [entry('192.0.2.4', 60)]);
    now += 61_000;
    expect(await driver.list(knoc)).toEqual([]);
    expect((await driver.apply(knoc, [entry('192.0.2.4', 60)]))[0]?.ok).toBe(true);
    expect(await driver.list(knoc)).toEqual(['192.0.2.4']);
  });

  it('active: a GroupName with XML characters is escaped, not injected', async () => {
    const { fake, driver } = await setup();
    const knoc = activeKnoc(fake, { GroupName: `ops & "dev"</member><member>evil` });
    expect((await driver.apply(knoc, [entry('192.0.2.12')]))[0]?.ok).toBe(true);
    expect(fake.tagsOf('192.0.2.12', { vsys: 'vsys2' })).toEqual([`kk-ops & "dev"</member><member>evil`]);
    expect(await driver.list(knoc)).toEqual(['192.0.2.12']);
  });

  it('active: Panorama sends target=<serial>; a DeviceGroup without SerialNumber fails clearly', async () => {
    const { fake, driver } = await setup({ panoramaSerials: ['007951000123'] });
    const base = activeKnoc(fake, { SerialNumber: '007951000123' });
    const knoc = { ...base, backend: { ...base.backend, DeviceGroup: 'branch' } };
    expect((await driver.apply(knoc, [entry('192.0.2.5')]))[0]?.ok).toBe(true);
    expect(fake.registered(TAG, { vsys: 'vsys2', serial: '007951000123' })).toEqual(['192.0.2.5']);
    expect(fake.registered(TAG, { vsys: 'vsys2' })).toEqual([]);
    expect(fake.requests.every((r) => r.target === '007951000123')).toBe(true);
    const noSerial = { ...knoc, acl: { ...knoc.acl, SerialNumber: '' } };
    await expect(driver.apply(noSerial, [entry('192.0.2.6')])).rejects.toThrow(/SerialNumber/);
  });

  it('active: retries a throttled call and reports an unknown vsys with the firewall reason', async () => {
    const { fake, driver, delays } = await setup();
    fake.throttle(2, 503);
    expect((await driver.apply(activeKnoc(fake), [entry('192.0.2.7')]))[0]?.ok).toBe(true);
    expect(delays).toHaveLength(2);
    const knoc = activeKnoc(fake);
    const [outcome] = await driver.apply({ ...knoc, backend: { ...knoc.backend, VSys: 'vsys9' } }, [
      entry('192.0.2.8'),
    ]);
    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toMatch(/vsys9 is not a valid virtual system/);
  });

  function passiveKnoc(fake: PanosFake, edl = 'postern-allow'): AgentKnocOf<'panos'> {
    const knoc = activeKnoc(fake, { EDLName: edl, GroupName: '' });
    return { ...knoc, aclId: 'acl-hidden-child' };
  }

  it('passive+: a grant triggers exactly one list refresh, however many entries, and the firewall fetches the list', async () => {
    const allowlist = ['192.0.2.20', '192.0.2.21', '2001:db8::20'];
    const source = await startLoopbackServer((_req, res) => res.end(`${allowlist.join('\n')}\n`));
    closers.push(() => source.close());
    const { fake, driver } = await setup();
    fake.addEdl('postern-allow', { vsys: 'vsys2', sourceUrl: `${source.url}/allowlist` });
    const knoc = passiveKnoc(fake);
    const outcomes = await driver.apply(
      knoc,
      allowlist.map((ip) => entry(ip)),
    );
    expect(outcomes.map((o) => o.ok)).toEqual([true, true, true]);
    expect(fake.edlRefreshes('postern-allow', { vsys: 'vsys2' })).toHaveLength(1);
    expect(fake.edlContent('postern-allow', { vsys: 'vsys2' })).toEqual(allowlist);
    expect(fake.requests.map((r) => [r.type, r.vsys])).toEqual([['op', 'vsys2']]);
    expect(await driver.list(knoc)).toEqual([]);
    expect((await driver.remove(knoc, [entry('192.0.2.20')]))[0]?.ok).toBe(true);
    expect(fake.edlRefreshes('postern-allow', { vsys: 'vsys2' })).toHaveLength(2);
    // No tag was ever registered in passive+ mode.
    expect(fake.registered(TAG, { vsys: 'vsys2' })).toEqual([]);
  });

  it('passive+: a burst of grants shares refreshes: the calls arriving during one share the next', async () => {
    const { fake, driver } = await setup();
    fake.addEdl('postern-allow', { vsys: 'vsys2' });
    fake.refreshDelayMs = 100;
    const knoc = passiveKnoc(fake);
    const first = driver.apply(knoc, [entry('192.0.2.40')]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const burst = await Promise.all(
      ['192.0.2.41', '192.0.2.42', '192.0.2.43'].map((ip) => driver.apply(knoc, [entry(ip)])),
    );
    expect((await first)[0]?.ok).toBe(true);
    expect(burst.map((outcomes) => outcomes[0]?.ok)).toEqual([true, true, true]);
    const refreshes = fake.edlRefreshes('postern-allow', { vsys: 'vsys2' });
    expect(refreshes).toHaveLength(2);
  });

  it('passive+: a refused refresh fails every entry with the firewall reason; a bad address fails alone', async () => {
    const { fake, driver, lines } = await setup();
    fake.addEdl('postern-allow', { vsys: 'vsys2' });
    fake.refuseRefresh('postern-allow', 'EDL fetch failed: certificate verify failed', { vsys: 'vsys2' });
    const outcomes = await driver.apply(passiveKnoc(fake), [entry('192.0.2.30'), entry('nope'), entry('192.0.2.31')]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, false, false]);
    expect(outcomes[0]?.error).toMatch(
      /refresh the external dynamic list postern-allow: EDL fetch failed: certificate verify failed/,
    );
    expect(outcomes[2]?.error).toBe(outcomes[0]?.error);
    expect(outcomes[1]?.error).toMatch(/not an IPv4 or IPv6 address/);
    expect(fake.edlRefreshes('postern-allow', { vsys: 'vsys2' })).toHaveLength(1);
    const [missing] = await driver.apply(passiveKnoc(fake, 'no-such-list'), [entry('192.0.2.32')]);
    expect(missing?.error).toMatch(/no-such-list does not exist/);
    expect(lines.join('\n')).not.toContain(KEY);
  });
});
