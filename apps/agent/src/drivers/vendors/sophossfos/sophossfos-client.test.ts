import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SophosSfosFake } from '../../../../test/fakes/sophos-sfos-fake.js';
import { memoryLogger } from '../../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import { parseAddress } from '../../addresses.js';
import { SFOS_PLACEHOLDER, SophosSfosClient, isSfosPlaceholder } from './sophossfos-client.js';
import { isDone } from './sophossfos-responses.js';

const PASSWORD = 'sfos-client-pass-1';
const tls = selfSignedCertificate();
let fake: SophosSfosFake;
let client: SophosSfosClient;
beforeEach(async () => {
  fake = await SophosSfosFake.start({ username: 'api', password: PASSWORD, tls });
  fake.addHost('kk_192.0.2.1', '192.0.2.1');
  fake.addHost('kk_192.0.2.2', '192.0.2.2');
  fake.addGroup('G', 'IPv4', ['kk_192.0.2.1']);
  fake.addGroup('G6', 'IPv6');
  client = new SophosSfosClient({
    hostname: fake.hostname,
    insecure: true,
    username: 'api',
    password: PASSWORD,
    logger: memoryLogger().logger,
  });
});
afterEach(async () => {
  client.close();
  await fake.close();
});

async function group(name = 'G') {
  const found = await client.group(name);
  if (found === null) throw new Error(`no group ${name}`);
  return found;
}

describe('SophosSfosClient.setHosts', () => {
  it('replaces the whole host list', async () => {
    expect(isDone(await client.setHosts(await group(), ['kk_192.0.2.2']))).toBe(true);
    expect(fake.hosts('G')).toEqual(['kk_192.0.2.2']);
  });

  it('empties a group the firewall lets be empty, with no placeholder', async () => {
    expect(isDone(await client.setHosts(await group(), []))).toBe(true);
    expect(fake.hosts('G')).toEqual([]);
    expect(fake.allHosts().some((host) => isSfosPlaceholder(host.name))).toBe(false);
  });

  for (const mode of ['refuse', 'ignore'] as const) {
    it(`keeps the placeholder when the firewall will not empty a group (${mode}), and drops it with the next host`, async () => {
      fake.emptyHostList(mode);
      expect(isDone(await client.setHosts(await group(), []))).toBe(true);
      expect(fake.hosts('G')).toEqual([SFOS_PLACEHOLDER.IPv4.name]);
      expect(fake.host(SFOS_PLACEHOLDER.IPv4.name)).toMatchObject({ type: 'IP', address: '255.255.255.255' });
      // Its name carries Postern's marker but no address: never read as a grant.
      expect(parseAddress(SFOS_PLACEHOLDER.IPv4.name.slice('kk_'.length))).toBeNull();
      const held = await group();
      expect(isDone(await client.setHosts(held, [...held.hosts, 'kk_192.0.2.2']))).toBe(true);
      expect(fake.hosts('G')).toEqual(['kk_192.0.2.2']);
      // Emptied again: the same placeholder host.
      expect(isDone(await client.setHosts(await group(), []))).toBe(true);
      expect(fake.allHosts().filter((host) => isSfosPlaceholder(host.name))).toHaveLength(1);
    });
  }

  it('uses the IPv6 placeholder in an IPv6 group', async () => {
    fake.addHost('kk_2001:db8::1', '2001:db8::1');
    await client.setHosts(await group('G6'), ['kk_2001:db8::1']);
    fake.emptyHostList('refuse');
    expect(isDone(await client.setHosts(await group('G6'), []))).toBe(true);
    expect(fake.hosts('G6')).toEqual([SFOS_PLACEHOLDER.IPv6.name]);
    expect(fake.host(SFOS_PLACEHOLDER.IPv6.name)).toMatchObject({ family: 'IPv6', address: '100::1' });
  });

  it('never puts a host of the placeholder name that opens something else in a group', async () => {
    fake.emptyHostList('refuse');
    fake.addHost(SFOS_PLACEHOLDER.IPv4.name, '192.0.2.99');
    const status = await client.setHosts(await group(), []);
    expect(isDone(status)).toBe(false);
    expect(status.text).toMatch(/exists but does not hold only 255\.255\.255\.255/);
    expect(fake.hosts('G')).toEqual(['kk_192.0.2.1']);
  });
});
