import type { AgentKnocOf } from '@postern/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { FmcFake, type FmcFakeOptions } from '../../../../test/fakes/fmc-fake.js';
import { memoryLogger } from '../../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import type { DriverEntry } from '../../driver.js';
import { FirepowerDriver } from './firepower-driver.js';

const PASSWORD = 'fmc-password-0123';
const DYN = 'dyn-uuid-1';
const GRP = 'grp-uuid-1';
const BRANCH = '7a1c0e52-3b8d-11ee-9b2f-0242ac120002';
const tls = selfSignedCertificate();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup(options: Pick<FmcFakeOptions, 'domains'> = {}) {
  let now = 1_000_000;
  const fake = await FmcFake.start({ username: 'api', password: PASSWORD, tls, now: () => now, ...options });
  fake.addDynamicObject(DYN, 'postern-ssh');
  fake.addNetworkGroup(GRP, 'postern-legacy', [], ['dev-1', 'dev-2']);
  const { logger, lines } = memoryLogger();
  const delays: number[] = [];
  const driver = new FirepowerDriver({
    logger,
    now: () => now,
    timeoutMs: 2_000,
    retry: { sleep: (ms) => (delays.push(ms), Promise.resolve()), baseMs: 5 },
  });
  cleanup.push(
    () => fake.close(),
    () => driver.close(),
  );
  const knoc = (uuid = DYN, backend: Partial<AgentKnocOf<'firepower'>['backend']> = {}): AgentKnocOf<'firepower'> => ({
    aclId: 'acl-1',
    name: 'ssh',
    url: 'ssh://fw',
    backendId: 'backend-1',
    backendType: 'firepower',
    backend: { Hostname: fake.hostname, Insecure: true, Username: 'api', Password: PASSWORD, ...backend },
    acl: { GroupUUID: uuid },
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { fake, driver, knoc, lines, delays, advance };
}

const entry = (ip: string): DriverEntry => ({ ip, ttlSeconds: 3600, userName: 'alice' });
const mappingWrites = (fake: FmcFake) =>
  fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/dynamicobjectmappings'));

describe('FirepowerDriver: dynamic objects (no deployment)', () => {
  it('adds a batch of addresses in one call, reads it back, and deploys nothing', async () => {
    const { fake, driver, knoc } = await setup();
    const ips = ['203.0.113.7', '10.1.0.0/16', '2001:DB8::7'];
    expect((await driver.apply(knoc(), ips.map(entry))).every((o) => o.ok)).toBe(true);
    expect(fake.mappings(DYN)).toEqual(['203.0.113.7', '10.1.0.0/16', '2001:db8::7']);
    expect(mappingWrites(fake)).toHaveLength(1);
    expect(fake.deployments).toEqual([]);
    expect(fake.logins).toBe(1);
  });

  it('reads every page of a large object and writes at most 1,000 mappings per call', async () => {
    const { fake, driver, knoc } = await setup();
    const ips = Array.from({ length: 1500 }, (_, i) => `10.${Math.floor(i / 250)}.${i % 250}.1`);
    expect((await driver.apply(knoc(), ips.map(entry))).every((o) => o.ok)).toBe(true);
    expect(mappingWrites(fake)).toHaveLength(2);
    expect((await driver.list(knoc())).length).toBe(1500);
  });

  it('refreshes the token before it expires, three times, then logs in again', async () => {
    const { fake, driver, knoc, advance } = await setup();
    await driver.list(knoc());
    for (let i = 0; i < 4; i++) {
      advance(29 * 60_000 + 45_000);
      await driver.list(knoc());
    }
    expect([fake.logins, fake.refreshes]).toEqual([2, 3]);
  });

  it('a refused session that cannot be refreshed leads to one new login', async () => {
    const { fake, driver, knoc } = await setup();
    await driver.list(knoc());
    fake.endSessions();
    expect((await driver.apply(knoc(), [entry('192.0.2.1')]))[0]?.ok).toBe(true);
    expect([fake.logins, fake.refreshes]).toEqual([2, 0]);
  });

  it('a wrong password fails every entry with a clear reason and no secret', async () => {
    const { driver, knoc, lines } = await setup();
    const [outcome] = await driver
      .apply(knoc(DYN, { Password: 'wrong-password-xyz' }), [entry('192.0.2.1')])
      .catch((error: Error) => [{ ip: '192.0.2.1', ok: false, error: error.message }]);
    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toMatch(/refused the login \(HTTP 401\); check the backend's Username and Password/);
    expect(JSON.stringify([outcome, lines])).not.toContain('wrong-password-xyz');
  });

  it('waits out 429 throttling and then applies', async () => {
    const { fake, driver, knoc, delays } = await setup();
    fake.throttle(2);
    expect((await driver.apply(knoc(), [entry('192.0.2.10')]))[0]?.ok).toBe(true);
    expect(delays).toHaveLength(2);
    expect(fake.mappings(DYN)).toEqual(['192.0.2.10']);
  });

  it('verifies the certificate unless the backend says Insecure', async () => {
    const { driver, knoc } = await setup();
    await expect(driver.list(knoc(DYN, { Insecure: false }))).rejects.toThrow(/TLS: .*self.signed/i);
  });

  it('an unknown GroupUUID is refused with its reason', async () => {
    const { driver, knoc } = await setup();
    const [outcome] = await driver.apply(knoc('nope'), [entry('192.0.2.1')]);
    expect(outcome).toMatchObject({
      ok: false,
      error: 'firepower: nope is neither a dynamic object nor a network group on the FMC',
    });
    await expect(driver.list(knoc('nope'))).rejects.toThrow(
      'firepower: nope is neither a dynamic object nor a network group on the FMC',
    );
  });
});

describe('FirepowerDriver: network groups (Postern objects, read-modify-write and deploy)', () => {
  const posternNames = (fake: FmcFake) => (fake.groupObjects(GRP) ?? []).map((o) => o.name).sort();

  it('puts kk_ objects in the group, writes only writable fields, reads back and deploys once per burst', async () => {
    const { fake, driver, knoc } = await setup();
    // A deployment request takes a while: grants arrive meanwhile (far longer than the writes on
    // loopback, even on a busy machine).
    fake.deployDelayMs = 250;
    const results = await Promise.all(
      ['192.0.2.1', '192.0.2.2', '10.9.0.0/16', '2001:DB8::4'].map((ip) => driver.apply(knoc(GRP), [entry(ip)])),
    );
    // The fake refuses a PUT carrying links or metadata (what the GET answers with), so every grant
    // being ok means the driver sent the writable fields only.
    expect(results.flat().map((o) => o.error)).toEqual(['', '', '', '']);
    expect(posternNames(fake)).toEqual(['kk_10.9.0.0_16', 'kk_192.0.2.1', 'kk_192.0.2.2', 'kk_2001-db8--4']);
    expect(fake.groupValues(GRP)).toEqual([]);
    expect(fake.deployments.length).toBeLessThanOrEqual(2);
    expect(fake.pendingDevices()).toEqual([]);
    expect(fake.deployments[0]?.deviceList.sort()).toEqual(['dev-1', 'dev-2']);
    // Already there: no write, no deployment.
    const before = fake.deployments.length;
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.1')]))[0]?.ok).toBe(true);
    expect(fake.deployments.length).toBe(before);
    expect((await driver.remove(knoc(GRP), [entry('192.0.2.1'), entry('192.0.2.99')])).every((o) => o.ok)).toBe(true);
    expect(fake.deployments.length).toBe(before + 1);
    expect((await driver.list(knoc(GRP))).sort()).toEqual(['10.9.0.0/16', '192.0.2.2', '2001:db8::4']);
  });

  it("never lists, removes or flushes an admin's literals and objects in the group", async () => {
    const { fake, driver, knoc } = await setup();
    const office = fake.addAddressObject('office-net', 'Network', '198.51.100.0/24');
    fake.addNetworkGroup('grp-shared', 'shared', ['203.0.113.50', '192.0.2.7'], ['dev-1'], [office]);
    const k = knoc('grp-shared');
    expect(await driver.list(k)).toEqual([]);
    expect((await driver.apply(k, [entry('192.0.2.7')]))[0]?.ok).toBe(true);
    expect(await driver.list(k)).toEqual(['192.0.2.7']);
    await driver.flush(k);
    expect(await driver.list(k)).toEqual([]);
    expect(fake.groupValues('grp-shared')).toEqual(['203.0.113.50', '192.0.2.7']);
    expect(fake.groupObjects('grp-shared')).toEqual([{ name: 'office-net', value: '198.51.100.0/24' }]);
  });

  it('revoking the last address puts the placeholder in, never counted as a grant', async () => {
    const { fake, driver, knoc } = await setup();
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.20')]))[0]?.ok).toBe(true);
    expect((await driver.remove(knoc(GRP), [entry('192.0.2.20')]))[0]?.ok).toBe(true);
    expect(fake.groupObjects(GRP)).toEqual([{ name: 'kk_placeholder', value: '192.0.2.255' }]);
    expect(await driver.list(knoc(GRP))).toEqual([]);
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.21')]))[0]?.ok).toBe(true);
    expect(await driver.list(knoc(GRP))).toEqual(['192.0.2.21']);
    await driver.flush(knoc(GRP));
    expect(posternNames(fake)).toEqual(['kk_placeholder']);
  });

  it('an object under Postern’s name opening more fails its grant and leaves the group', async () => {
    const { fake, driver, knoc } = await setup();
    const impostor = fake.addAddressObject('kk_192.0.2.30', 'Network', '0.0.0.0/0');
    fake.addToGroup(GRP, impostor);
    expect(await driver.list(knoc(GRP))).toEqual([]);
    const [outcome] = await driver.apply(knoc(GRP), [entry('192.0.2.30')]);
    expect(outcome?.error).toMatch(
      /object kk_192\.0\.2\.30 exists but opens 0\.0\.0\.0\/0, not 192\.0\.2\.30\/32: .*taken out of network group/,
    );
    // It was the group's only member: the placeholder keeps the group from being empty.
    expect(fake.groupObjects(GRP)).toEqual([{ name: 'kk_placeholder', value: '192.0.2.255' }]);
  });

  it('one refused address fails alone; a failed deployment is tried again on the next call', async () => {
    const { fake, driver, knoc } = await setup();
    fake.refuseValue('192.0.2.66');
    const outcomes = await driver.apply(knoc(GRP), [entry('192.0.2.5'), entry('192.0.2.66')]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(outcomes[1]?.error).toMatch(/could not create object kk_192\.0\.2\.66 .*HTTP 400/);
    fake.deployRefusal = 'Deployment already in progress';
    const [undeployed] = await driver.apply(knoc(GRP), [entry('192.0.2.6')]);
    expect(undeployed?.error).toMatch(/on the FMC but not deployed: .*Deployment already in progress/);
    expect(fake.pendingDevices().sort()).toEqual(['dev-1', 'dev-2']);
    fake.deployRefusal = null;
    // Nothing left to write, but the failed deployment is made now.
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.6')]))[0]?.ok).toBe(true);
    expect(fake.pendingDevices()).toEqual([]);
    expect((await driver.list(knoc(GRP))).sort()).toEqual(['192.0.2.5', '192.0.2.6']);
  });
});

describe('FirepowerDriver: deployment modes', () => {
  it("automatic deploys the devices holding Postern's change, not a device with only others' changes", async () => {
    const { fake, driver, knoc } = await setup();
    fake.addPendingChange('dev-9', 'alice-admin');
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.40')]))[0]?.ok).toBe(true);
    expect(fake.deployments.map((d) => d.deviceList.sort())).toEqual([['dev-1', 'dev-2']]);
    expect(fake.pendingDevices()).toEqual(['dev-9']);
  });

  it("onlyWhenOnlyPostern holds a device where another admin's change waits, and deploys once it is gone", async () => {
    const { fake, driver, knoc } = await setup();
    fake.addPendingChange('dev-2', 'alice-admin');
    const k = knoc(GRP, { Deploy: 'onlyWhenOnlyPostern' });
    const [held] = await driver.apply(k, [entry('192.0.2.41')]);
    expect(held?.error).toMatch(
      /not deployed: dev-2 also has other users' changes waiting \(Deploy: onlyWhenOnlyPostern\)/,
    );
    expect(fake.deployments.map((d) => d.deviceList)).toEqual([['dev-1']]);
    expect(fake.pendingDevices()).toEqual(['dev-2']);
    // The admin deploys dev-2 (their change and Postern's): the next call succeeds without a deployment.
    fake.clearPending('dev-2');
    expect((await driver.apply(k, [entry('192.0.2.41')]))[0]?.ok).toBe(true);
    expect(fake.deployments).toHaveLength(1);
  });

  it('manual never deploys: the entry is ok once in the group, with a warning', async () => {
    const { fake, driver, knoc, lines } = await setup();
    const k = knoc(GRP, { Deploy: 'manual' });
    expect((await driver.apply(k, [entry('192.0.2.42')]))[0]?.ok).toBe(true);
    expect(fake.deployments).toEqual([]);
    expect(fake.pendingDevices().sort()).toEqual(['dev-1', 'dev-2']);
    expect(lines.join('\n')).toContain('deployment is left to the admin (Deploy: manual)');
  });
});

describe('FirepowerDriver: domains', () => {
  it('works in the backend’s Domain, by name or UUID, instead of the login’s default', async () => {
    const { fake, driver, knoc } = await setup({ domains: [{ name: 'Global/Branch', uuid: BRANCH }] });
    expect((await driver.apply(knoc(DYN, { Domain: 'global/branch' }), [entry('192.0.2.50')]))[0]?.ok).toBe(true);
    const config = fake.requests.filter((r) => r.path.startsWith('/api/fmc_config/'));
    expect(config.length).toBeGreaterThan(0);
    expect(config.every((r) => r.path.startsWith(`/api/fmc_config/v1/domain/${BRANCH}/`))).toBe(true);
  });

  it('a Domain the user may not use is refused, naming the ones it may', async () => {
    const { driver, knoc } = await setup({ domains: [{ name: 'Global/Branch', uuid: BRANCH }] });
    await expect(driver.list(knoc(DYN, { Domain: 'Elsewhere' }))).rejects.toThrow(
      `firepower: the FMC user may not work in domain "Elsewhere" (the backend's Domain); its domains: Global (e276abec-e0f2-11e3-8169-6d9ed49b625f), Global/Branch (${BRANCH})`,
    );
  });
});
