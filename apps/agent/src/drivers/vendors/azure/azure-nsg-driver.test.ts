import type { AgentKnocOf } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { AzureNsgFake, type AzureFakeOptions } from '../../../../test/fakes/azure-nsg-fake.js';
import { entry, testDriverOptions, testKnoc, useCleanup } from '../../../../test/support/driver-test-kit.js';
import { memoryLogger } from '../../../../test/support/memory-logger.js';
import { AzureNsgDriver } from './azure-nsg-driver.js';

const SECRET = 'azure-secret-0123456789~x';
const SUB = 'sub-b';
const cleanup = useCleanup();

async function setup(
  options: { fake?: Partial<AzureFakeOptions>; band?: { from: number; to: number }; pollIntervalMs?: number } = {},
) {
  const fake = await AzureNsgFake.start({
    tenantId: 'tenant-1',
    clientId: 'app-1',
    clientSecret: SECRET,
    subscriptions: ['sub-a', SUB],
    ...options.fake,
  });
  fake.addNsg(SUB, 'rg', 'nsg', [
    {
      name: 'admin-https',
      properties: { priority: 3000, direction: 'Inbound', access: 'Allow', provisioningState: 'Succeeded' },
    },
  ]);
  const { options: driverOptions, lines, delays } = testDriverOptions();
  const driver = new AzureNsgDriver({
    ...driverOptions,
    authorityHost: fake.url,
    managementEndpoint: fake.url,
    pollIntervalMs: options.pollIntervalMs ?? 1,
    ...(options.band === undefined ? {} : { priorityBand: options.band }),
  });
  cleanup.push(fake, driver);
  const knoc = (
    acl: Partial<AgentKnocOf<'azure'>['acl']> = {},
    backend: Partial<AgentKnocOf<'azure'>['backend']> = {},
    aclId = 'acl-1',
  ) =>
    testKnoc(
      'azure',
      { ClientId: 'app-1', ClientSecret: SECRET, TenantId: 'tenant-1', NoCache: false, ...backend },
      { NsgDirection: 'Inbound', NsgName: 'nsg', NsgPort: 443, ResourceGroup: 'rg', ...acl },
      { aclId, name: 'web', url: 'https://web' },
    );
  const rules = () => fake.rules(SUB, 'rg', 'nsg') ?? [];
  return { fake, driver, knoc, rules, lines, delays };
}

/** Someone else's inbound rule at this priority. */
const foreignRule = (name: string, priority: number) => ({
  name,
  properties: { priority, direction: 'Inbound', access: 'Allow', provisioningState: 'Succeeded' },
});

const entries = (...ips: string[]) => ips.map((ip) => entry(ip, { ttlSeconds: 600 }));

describe('AzureNsgDriver', () => {
  it('finds the subscription holding the NSG, writes one rule per address in the band, avoiding taken priorities', async () => {
    const { driver, knoc, rules } = await setup();
    const outcomes = await driver.apply(knoc(), entries('192.0.2.7', '2001:db8::7', '10.0.0.0/24'));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    const own = rules().filter((rule) => rule.name.startsWith('postern-'));
    expect(own.map((rule) => rule.properties.priority).sort()).toEqual([3001, 3002, 3003]);
    const v6 = own.find((rule) => rule.properties.sourceAddressPrefix === '2001:db8::7/128');
    expect(v6?.name).toMatch(/^postern-[0-9a-f]{8}-443-2001-db8--7_128$/);
    expect(v6?.properties).toMatchObject({
      direction: 'Inbound',
      access: 'Allow',
      protocol: 'Tcp',
      destinationPortRange: '443',
      destinationAddressPrefix: '*',
      provisioningState: 'Succeeded',
      description: 'Postern grant for alice',
    });
  });

  it('never writes two changes to one NSG at once, even from parallel calls and several knocs', async () => {
    const { fake, driver, knoc, rules } = await setup({ fake: { asyncPolls: 3 } });
    const results = await Promise.all([
      driver.apply(knoc(), entries('192.0.2.1', '192.0.2.2')),
      driver.apply(knoc({}, {}, 'acl-2'), entries('192.0.2.3')),
      driver.apply(knoc({ NsgPort: 22 }, {}, 'acl-3'), entries('192.0.2.4')),
    ]);
    expect(results.flat().every((outcome) => outcome.ok)).toBe(true);
    expect(fake.concurrentWrites).toBe(0);
    expect(new Set(rules().map((rule) => rule.properties.priority)).size).toBe(5);
    expect(await driver.list(knoc({}, {}, 'acl-2'))).toEqual(['192.0.2.3']);
  });

  it('retries 429 with Retry-After and follows operations polled via Location only', async () => {
    const { fake, driver, knoc, delays } = await setup();
    fake.locationOnly = true;
    await driver.list(knoc());
    fake.throttle(2, '1');
    expect((await driver.apply(knoc(), entries('192.0.2.9')))[0]).toEqual({ ip: '192.0.2.9', ok: true, error: '' });
    expect(delays).toEqual([50, 50]);
    expect((await driver.remove(knoc(), entries('192.0.2.9')))[0]?.ok).toBe(true);
    expect(await driver.list(knoc())).toEqual([]);
  });

  it('caches the token until shortly before it expires; NoCache fetches one per call', async () => {
    const cached = await setup({ fake: { tokenLifetimeSeconds: 3599 } });
    await cached.driver.apply(cached.knoc(), entries('192.0.2.1', '192.0.2.2'));
    await cached.driver.list(cached.knoc());
    expect(cached.fake.tokensIssued).toBe(1);

    const short = await setup({ fake: { tokenLifetimeSeconds: 1 } });
    await short.driver.list(short.knoc());
    await new Promise((resolve) => setTimeout(resolve, 600));
    // Past half its life the token is replaced before use, not after a 401.
    await short.driver.list(short.knoc());
    expect(short.fake.tokensIssued).toBe(2);
    expect(
      short.fake.requests.filter((request) => !request.authorized && request.path !== '/tenant-1/oauth2/v2.0/token'),
    ).toEqual([]);

    const uncached = await setup();
    const requestsBefore = uncached.fake.requests.length;
    await uncached.driver.list(uncached.knoc({}, { NoCache: true }));
    const armCalls = uncached.fake.requests.slice(requestsBefore).filter((request) => !request.path.includes('oauth2'));
    expect(uncached.fake.tokensIssued).toBe(armCalls.length);
  });

  it('reports a full priority band as the grant error, and keeps the other entries', async () => {
    const { driver, knoc } = await setup({ band: { from: 3000, to: 3002 } });
    const outcomes = await driver.apply(knoc(), entries('192.0.2.1', '192.0.2.2', '192.0.2.3'));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, false]);
    expect(outcomes[2]?.error).toMatch(/no free priority left in 3000–3002 for Inbound rules/);
    // An address already granted costs no priority: applying it again is fine.
    expect((await driver.apply(knoc(), entries('192.0.2.1')))[0]?.ok).toBe(true);
  });

  it('retries at the next free priority when another writer takes the chosen one between the listing and the write', async () => {
    const { fake, driver, knoc, rules } = await setup();
    const asked: unknown[] = [];
    fake.onRulePut = (put) => {
      asked.push(put.priority);
      // The portal writes a rule at the very priority Postern chose, after Postern listed the rules.
      if (asked.length === 1) fake.putForeignRule(SUB, 'rg', 'nsg', foreignRule('portal-rdp', Number(put.priority)));
    };
    const outcomes = await driver.apply(knoc(), entries('192.0.2.7', '192.0.2.8'));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(asked).toEqual([3001, 3002, 3003]);
    const byName = new Map(rules().map((rule) => [rule.name, rule.properties.priority]));
    expect(byName.get('portal-rdp')).toBe(3001);
    expect([...byName].filter(([name]) => name.startsWith('postern-')).map(([, priority]) => priority)).toEqual([
      3002, 3003,
    ]);
  });

  it('fails a grant clearly when its priority is taken at every try, and keeps the other entries', async () => {
    const { fake, driver, knoc, rules } = await setup();
    let taken = 0;
    fake.onRulePut = (put) => {
      if (put.rule.endsWith('192.0.2.8_32'))
        fake.putForeignRule(SUB, 'rg', 'nsg', foreignRule(`terraform-${++taken}`, Number(put.priority)));
    };
    const outcomes = await driver.apply(knoc(), entries('192.0.2.7', '192.0.2.8', '192.0.2.9'));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false, true]);
    expect(outcomes[1]?.error).toMatch(
      /taken by another rule every time \(3002, 3003, 3004, 3005\).*give Postern a band of its own/,
    );
    expect(taken).toBe(4);
    const own = rules().filter((rule) => rule.name.startsWith('postern-'));
    expect(own.map((rule) => rule.properties.priority)).toEqual([3001, 3006]);
  });

  it('writes outbound rules with the address as destination', async () => {
    const { driver, knoc, rules } = await setup();
    expect((await driver.apply(knoc({ NsgDirection: 'Outbound' }), entries('192.0.2.5')))[0]?.ok).toBe(true);
    expect(rules().find((rule) => rule.name.startsWith('postern-'))?.properties).toMatchObject({
      direction: 'Outbound',
      sourceAddressPrefix: '*',
      destinationAddressPrefix: '192.0.2.5/32',
      priority: 3000,
    });
    expect(await driver.list(knoc({ NsgDirection: 'Outbound' }))).toEqual(['192.0.2.5']);
  });

  it('says clearly when the NSG is nowhere, is in two subscriptions, or the secret is refused, never printing it', async () => {
    const { fake, driver, knoc, lines } = await setup();
    await expect(driver.list(knoc({ NsgName: 'missing' }))).rejects.toThrow(
      /network security group missing in resource group rg is in none of the 2 subscription/,
    );
    fake.addNsg('sub-a', 'rg', 'nsg');
    const fresh = new AzureNsgDriver({
      logger: memoryLogger().logger,
      authorityHost: fake.url,
      managementEndpoint: fake.url,
    });
    cleanup.push(() => fresh.close());
    await expect(fresh.list(knoc())).rejects.toThrow(/exists in 2 subscriptions/);
    // A new secret rebuilds the client, which must sign in before it can find the NSG: every entry fails with that.
    const outcomes = await driver.apply(knoc({}, { ClientSecret: `${SECRET}-old` }), entries('192.0.2.1', '192.0.2.2'));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, false]);
    const refused = outcomes[0]?.error ?? '';
    expect(outcomes[1]?.error).toBe(refused);
    expect(refused).toMatch(/refused the client credentials \(HTTP 401: invalid_client: AADSTS7000215/);
    expect(JSON.stringify([refused, lines])).not.toContain(SECRET);
  });

  it('looks for the NSG again when it has moved to another subscription', async () => {
    const { fake, driver, knoc } = await setup();
    expect((await driver.apply(knoc(), entries('192.0.2.1')))[0]?.ok).toBe(true);
    const kept = fake.rules(SUB, 'rg', 'nsg') ?? [];
    fake.removeNsg(SUB, 'rg', 'nsg');
    fake.addNsg('sub-a', 'rg', 'nsg', kept);
    await expect(driver.list(knoc())).rejects.toThrow(/could not list the security rules: HTTP 404 ResourceNotFound/);
    expect(await driver.list(knoc())).toEqual(['192.0.2.1']);
  });
});
