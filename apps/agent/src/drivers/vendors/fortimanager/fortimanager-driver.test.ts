import type { AgentKnocOf } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { FortimanagerFake } from '../../../../test/fakes/fortimanager-fake.js';
import { entry, testDriverOptions, testKnoc, useCleanup } from '../../../../test/support/driver-test-kit.js';
import { memoryLogger } from '../../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import { ipv4Mask, urlName } from './fortimanager-client.js';
import { FortimanagerDriver } from './fortimanager-driver.js';

const KEY = 'fmg-api-key-0123456789';
const tls = selfSignedCertificate();
const cleanup = useCleanup();

async function setup(options: { pollMs?: number } = {}) {
  const fake = await FortimanagerFake.start({ apiKey: KEY, tls });
  fake.addGroup('postern-ssh');
  fake.addPackage('default', ['FGT-1', 'FGT-2']);
  const { options: driverOptions, lines, delays } = testDriverOptions();
  const driver = new FortimanagerDriver({ ...driverOptions, pollMs: options.pollMs ?? 0 });
  cleanup.push(fake, driver);
  const knoc = (name = 'postern-ssh', backend: Partial<AgentKnocOf<'fortimanager'>['backend']> = {}) =>
    testKnoc('fortimanager', { Hostname: fake.hostname, Insecure: true, ApiKey: KEY, ...backend }, { Name: name });
  return { fake, driver, knoc, lines, delays };
}

describe('FortimanagerDriver', () => {
  it('keeps a group from being empty with the built-in none when the last grant leaves it', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addGroup('empty', { members: [] });
    expect((await driver.apply(knoc('empty'), [entry('203.0.113.7')]))[0]).toMatchObject({ ok: true });
    expect(fake.members('empty')).toEqual(['kk_203.0.113.7']);
    expect((await driver.remove(knoc('empty'), [entry('203.0.113.7')]))[0]).toMatchObject({ ok: true });
    expect(fake.members('empty')).toEqual(['none']);
    expect(await driver.list(knoc('empty'))).toEqual([]);
  });

  it('creates kk_ objects and members in one call each, reads back, and installs the package once', async () => {
    const { fake, driver, knoc } = await setup();
    const outcomes = await driver.apply(knoc(), [entry('203.0.113.7'), entry('10.1.0.0/16')]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_203.0.113.7', 'kk_10.1.0.0/16']);
    expect(fake.address('kk_10.1.0.0/16')).toEqual({ name: 'kk_10.1.0.0/16', subnet: ['10.1.0.0', '255.255.0.0'] });
    expect(fake.calls.filter((c) => c.method === 'add').map((c) => c.url)).toEqual([
      '/pm/config/adom/root/obj/firewall/address',
      '/pm/config/adom/root/obj/firewall/address',
      '/pm/config/adom/root/obj/firewall/addrgrp/postern-ssh/member',
      '/pm/config/adom/root/obj/firewall/addrgrp/postern-ssh/member',
    ]);
    expect(fake.installs).toEqual([{ adom: 'root', pkg: 'default' }]);
    expect(fake.dirty()).toBe(false);
    // Already members: nothing written, nothing installed.
    expect((await driver.apply(knoc(), [entry('203.0.113.7')]))[0]?.ok).toBe(true);
    expect(fake.installs).toHaveLength(1);
    expect((await driver.remove(knoc(), [entry('203.0.113.7')]))[0]?.ok).toBe(true);
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_10.1.0.0/16']);
    expect(fake.installs).toHaveLength(2);
  });

  it('a burst of grants costs at most two installs', async () => {
    // An install takes a while (tens of seconds on a real FortiManager): grants arrive meanwhile.
    // Here 5 polls 50 ms apart, far longer than the four writes on loopback, even on a busy machine.
    const { fake, driver, knoc } = await setup({ pollMs: 50 });
    fake.installPolls = 5;
    const results = await Promise.all(
      ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].map((ip) => driver.apply(knoc(), [entry(ip)])),
    );
    expect(results.flat().every((o) => o.ok)).toBe(true);
    expect(fake.installs.length).toBeLessThanOrEqual(2);
    expect(fake.dirty()).toBe(false);
  });

  it('names the ADOM before a slash, and handles IPv6 in addrgrp6', async () => {
    const fake = await FortimanagerFake.start({ apiKey: KEY, tls, adoms: ['edge'] });
    cleanup.push(() => fake.close());
    fake.addGroup('a/b', { adom: 'edge' });
    fake.addGroup('a/b', { adom: 'edge', family: 'ipv6' });
    const driver = new FortimanagerDriver({ logger: memoryLogger().logger, pollMs: 0 });
    cleanup.push(() => driver.close());
    const knoc = testKnoc(
      'fortimanager',
      { Hostname: fake.hostname, Insecure: true, ApiKey: KEY },
      { Name: 'edge/a/b' },
      { aclId: 'acl-2', name: 'x', url: 'ssh://x', backendId: 'b2' },
    );
    expect((await driver.apply(knoc, [entry('2001:DB8::7'), entry('192.0.2.9')])).every((o) => o.ok)).toBe(true);
    expect(fake.members('a/b', { adom: 'edge', family: 'ipv6' })).toEqual(['none', 'kk_2001:db8::7']);
    expect(fake.address('kk_2001:db8::7', { adom: 'edge', family: 'ipv6' })).toEqual({
      name: 'kk_2001:db8::7',
      ip6: '2001:db8::7/128',
    });
    expect(fake.calls.some((c) => c.url === '/pm/config/adom/edge/obj/firewall/addrgrp/a\\/b/member')).toBe(true);
    expect((await driver.list(knoc)).sort()).toEqual(['192.0.2.9', '2001:db8::7']);
  });

  it('in workspace mode locks, commits and unlocks; a lock held by an admin is reported as such', async () => {
    const { fake, driver, knoc } = await setup();
    fake.workspaceMode = true;
    expect((await driver.apply(knoc(), [entry('192.0.2.10')]))[0]?.ok).toBe(true);
    const execs = fake.calls.filter((c) => c.method === 'exec').map((c) => c.url);
    expect(execs).toEqual([
      '/dvmdb/adom/root/workspace/lock',
      '/dvmdb/adom/root/workspace/commit',
      '/dvmdb/adom/root/workspace/unlock',
      '/securityconsole/install/package',
    ]);
    fake.lockedBy = 'admin';
    const [blocked] = await driver.apply(knoc(), [entry('192.0.2.11')]);
    expect(blocked?.error).toMatch(/ADOM root is locked by another administrator/);
    expect(fake.members('postern-ssh')).toEqual(['none', 'kk_192.0.2.10']);
  });

  it('a failed install fails the entries and is tried again on the next call', async () => {
    const { fake, driver, knoc } = await setup();
    fake.installFailure = 'device FGT-2 unreachable';
    const [outcome] = await driver.apply(knoc(), [entry('192.0.2.20')]);
    expect(outcome?.error).toBe(
      'fortimanager: the change is in ADOM root but not installed: fortimanager: install policy package default of ADOM root: device FGT-2 unreachable',
    );
    fake.installFailure = null;
    expect((await driver.apply(knoc(), [entry('192.0.2.20')]))[0]?.ok).toBe(true);
    expect(fake.installs).toHaveLength(1);
    expect(fake.dirty()).toBe(false);
  });

  it('a missing group fails its entries; an empty Name is refused; 429 is waited out', async () => {
    const { fake, driver, knoc, delays } = await setup();
    const [missing] = await driver.apply(knoc('nope'), [entry('192.0.2.30')]);
    expect(missing?.error).toBe('fortimanager: address group nope does not exist in the ADOM');
    await expect(driver.apply(knoc('  '), [entry('192.0.2.30')])).rejects.toThrow(/names no address group/);
    fake.throttle(2, '9');
    expect((await driver.apply(knoc(), [entry('192.0.2.31')]))[0]?.ok).toBe(true);
    expect(delays).toEqual([50, 50]);
  });

  it('spells masks and url names as FortiManager expects', () => {
    expect([ipv4Mask(32), ipv4Mask(24), ipv4Mask(0), ipv4Mask(17)]).toEqual([
      '255.255.255.255',
      '255.255.255.0',
      '0.0.0.0',
      '255.255.128.0',
    ]);
    expect(urlName('kk_10.0.0.0/24')).toBe('kk_10.0.0.0\\/24');
  });
});
