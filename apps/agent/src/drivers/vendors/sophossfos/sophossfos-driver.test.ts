import type { AgentKnocOf } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { SophosSfosFake } from '../../../../test/fakes/sophos-sfos-fake.js';
import { entry, testDriverOptions, testKnoc, useCleanup } from '../../../../test/support/driver-test-kit.js';
import { selfSignedCertificate } from '@postern/test-support';
import { SophosSfosDriver } from './sophossfos-driver.js';

const PASSWORD = 'pw&"quoted"<x>';
const tls = selfSignedCertificate();
const cleanup = useCleanup();

async function setup() {
  const fake = await SophosSfosFake.start({ username: 'api', password: PASSWORD, tls });
  const { options: driverOptions, lines, delays } = testDriverOptions();
  const driver = new SophosSfosDriver(driverOptions);
  cleanup.push(fake, driver);
  const knoc = (
    acl: Partial<AgentKnocOf<'sophossfos'>['acl']> = {},
    backend: Partial<AgentKnocOf<'sophossfos'>['backend']> = {},
  ) =>
    testKnoc(
      'sophossfos',
      { Hostname: fake.hostname, Insecure: true, Username: 'api', Password: PASSWORD, ...backend },
      { GroupName: 'ssh', GroupNameV6: 'ssh6', ...acl },
    );
  return { fake, driver, knoc, lines, delays };
}

describe('SophosSfosDriver', () => {
  it('trusts an existing IP host under Postern’s name only when it opens exactly the grant', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('ssh', 'IPv4', []);
    fake.addGroup('ssh6', 'IPv6');
    // Made by hand before Postern: right (an IP host; a Network host with a dotted mask), or not.
    fake.addHost('kk_203.0.113.7', '203.0.113.7');
    fake.addHost('kk_10.1.0.0/16', '10.1.0.0', { subnet: '255.255.0.0' });
    fake.addHost('kk_2001:db8::/64', '2001:db8::', { subnet: '64' });
    fake.addHost('kk_198.51.100.9', '198.51.100.0', { subnet: '255.255.255.0' });
    fake.addHost('kk_198.51.100.10', '198.51.100.10', { subnet: '255.0.255.0' });
    fake.group('ssh')?.hosts.push('kk_198.51.100.9');

    const outcomes = await driver.apply(knoc(), [
      entry('203.0.113.7'),
      entry('10.1.0.0/16'),
      entry('2001:db8::/64'),
      entry('198.51.100.9'),
      entry('198.51.100.10'),
    ]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, false, false]);
    expect(outcomes[3]?.error).toContain(
      'sophossfos: IP host kk_198.51.100.9 exists but opens 198.51.100.0/24, not 198.51.100.9/32',
    );
    expect(outcomes[4]?.error).toContain('opens something other than one address or network');
    // The impostor left the group; the hosts themselves stay as they were made.
    expect(fake.hosts('ssh')).toEqual(['kk_203.0.113.7', 'kk_10.1.0.0/16']);
    expect(fake.hosts('ssh6')).toEqual(['kk_2001:db8::/64']);
    expect(fake.host('kk_198.51.100.9')?.subnet).toBe('255.255.255.0');
    expect((await driver.list(knoc())).sort()).toEqual(['10.1.0.0/16', '2001:db8::/64', '203.0.113.7']);
  });

  it('writes IP hosts and networks into the group of their family, one host request and one update each', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('ssh');
    fake.addGroup('ssh6', 'IPv6');
    const outcomes = await driver.apply(knoc(), [entry('203.0.113.7'), entry('10.1.0.0/16'), entry('2001:DB8::/32')]);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(fake.hosts('ssh')).toEqual(['kk_203.0.113.7', 'kk_10.1.0.0/16']);
    expect(fake.hosts('ssh6')).toEqual(['kk_2001:db8::/32']);
    expect(fake.host('kk_10.1.0.0/16')).toEqual({
      name: 'kk_10.1.0.0/16',
      family: 'IPv4',
      type: 'Network',
      address: '10.1.0.0',
      subnet: '255.255.0.0',
    });
    expect(fake.host('kk_2001:db8::/32')?.subnet).toBe('32');
    // The admin's description survives the whole-group update.
    expect(fake.group('ssh')?.description).toBe('ssh (admin)');
    expect(fake.requests.filter((xml) => xml.includes('<Set operation="add">'))).toHaveLength(2);
    // Credentials in every request, the password XML-escaped.
    expect(fake.requests.every((xml) => xml.includes('<Password>pw&amp;&quot;quoted&quot;&lt;x&gt;</Password>'))).toBe(
      true,
    );
    expect((await driver.list(knoc())).sort()).toEqual(['10.1.0.0/16', '2001:db8::/32', '203.0.113.7']);
  });

  it('without GroupNameV6 an IPv6 entry fails alone with the reason; a missing group is named', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('ssh');
    const outcomes = await driver.apply(knoc({ GroupNameV6: '' }), [entry('2001:db8::1'), entry('192.0.2.1')]);
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, true]);
    expect(outcomes[0]?.error).toMatch(/no IPv6 group \(GroupNameV6\)/);
    expect((await driver.apply(knoc({ GroupName: 'nope' }), [entry('192.0.2.2')]))[0]?.error).toBe(
      'sophossfos: IP host group nope does not exist on the firewall',
    );
  });

  it('serialises read-modify-write: concurrent grants on one group all land', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('ssh');
    const results = await Promise.all(
      ['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((ip) => driver.apply(knoc(), [entry(ip)])),
    );
    expect(results.flat().every((outcome) => outcome.ok)).toBe(true);
    expect(fake.hosts('ssh')?.sort()).toEqual(['kk_192.0.2.1', 'kk_192.0.2.2', 'kk_192.0.2.3']);
  });

  it('removes a host only when no other group holds it', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('ssh');
    fake.addGroup('web');
    await driver.apply(knoc(), [entry('192.0.2.9')]);
    await driver.apply(knoc({ GroupName: 'web' }), [entry('192.0.2.9')]);
    expect((await driver.remove(knoc(), [entry('192.0.2.9')]))[0]?.ok).toBe(true);
    expect(fake.hosts('ssh')).toEqual([]);
    expect(fake.host('kk_192.0.2.9')).toBeDefined();
    expect((await driver.remove(knoc({ GroupName: 'web' }), [entry('192.0.2.9')]))[0]?.ok).toBe(true);
    expect(fake.allHosts()).toEqual([]);
  });

  it('says what to fix when the caller is not in the API allow list; waits out 503', async () => {
    const { fake, driver, knoc, delays } = await setup();
    fake.addGroup('ssh');
    fake.denyCaller = true;
    await expect(driver.list(knoc())).rejects.toThrow(/534 .*Allowed IP address/);
    fake.denyCaller = false;
    fake.throttle(2);
    expect((await driver.apply(knoc(), [entry('192.0.2.10')]))[0]).toEqual({ ip: '192.0.2.10', ok: true, error: '' });
    expect(delays).toHaveLength(2);
  });

  it('verifies the certificate unless the backend says Insecure', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('ssh');
    await expect(driver.list(knoc({}, { Insecure: false }))).rejects.toThrow(/TLS: .*self.signed/i);
    expect(await driver.list(knoc())).toEqual([]);
  });
});
