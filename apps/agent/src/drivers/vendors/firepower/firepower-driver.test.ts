import type { AgentKnocOf } from '@postern/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { FmcFake } from '../../../../test/fakes/fmc-fake.js';
import { memoryLogger } from '../../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '../../../../test/support/self-signed.js';
import type { DriverEntry } from '../../driver.js';
import { FirepowerDriver } from './firepower-driver.js';

const PASSWORD = 'fmc-password-0123';
const DYN = 'dyn-uuid-1';
const GRP = 'grp-uuid-1';
const tls = selfSignedCertificate();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function setup() {
  let now = 1_000_000;
  const fake = await FmcFake.start({ username: 'api', password: PASSWORD, tls, now: () => now });
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
    await expect(driver.apply(knoc('nope'), [entry('192.0.2.1')])).rejects.toThrow(
      'firepower: nope is neither a dynamic object nor a network group on the FMC',
    );
  });
});

describe('FirepowerDriver: network groups (read-modify-write and deploy)', () => {
  it('rewrites the group, reads it back and deploys once per burst, not once per grant', async () => {
    const { fake, driver, knoc } = await setup();
    // A deployment request takes a while: grants arrive meanwhile (far longer than the four writes
    // on loopback, even on a busy machine).
    fake.deployDelayMs = 250;
    const results = await Promise.all(
      ['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4'].map((ip) => driver.apply(knoc(GRP), [entry(ip)])),
    );
    expect(results.flat().every((o) => o.ok)).toBe(true);
    expect(fake.groupValues(GRP)?.sort()).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.3', '192.0.2.4']);
    expect(fake.deployments.length).toBeLessThanOrEqual(2);
    expect(fake.pendingDevices()).toEqual([]);
    expect(fake.deployments[0]?.deviceList.sort()).toEqual(['dev-1', 'dev-2']);
    // Already there: no write, no deployment.
    const before = fake.deployments.length;
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.1')]))[0]?.ok).toBe(true);
    expect(fake.deployments.length).toBe(before);
    expect((await driver.remove(knoc(GRP), [entry('192.0.2.1'), entry('192.0.2.99')])).every((o) => o.ok)).toBe(true);
    expect(fake.deployments.length).toBe(before + 1);
    expect(await driver.list(knoc(GRP))).toEqual(['192.0.2.2', '192.0.2.3', '192.0.2.4']);
  });

  it('one refused literal fails alone; a failed deployment is tried again on the next call', async () => {
    const { fake, driver, knoc } = await setup();
    fake.refuseValue('192.0.2.66');
    const outcomes = await driver.apply(knoc(GRP), [entry('192.0.2.5'), entry('192.0.2.66')]);
    expect(outcomes.map((o) => o.ok)).toEqual([true, false]);
    expect(outcomes[1]?.error).toMatch(/HTTP 400: Invalid IP address or network: 192.0.2.66/);
    fake.deployRefusal = 'Deployment already in progress';
    const [undeployed] = await driver.apply(knoc(GRP), [entry('192.0.2.6')]);
    expect(undeployed?.error).toMatch(/on the FMC but not deployed: .*Deployment already in progress/);
    expect(fake.pendingDevices().sort()).toEqual(['dev-1', 'dev-2']);
    fake.deployRefusal = null;
    // Nothing left to write, but the failed deployment is made now.
    expect((await driver.apply(knoc(GRP), [entry('192.0.2.6')]))[0]?.ok).toBe(true);
    expect(fake.pendingDevices()).toEqual([]);
    expect(fake.groupValues(GRP)).toEqual(['192.0.2.5', '192.0.2.6']);
  });
});
