import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SophosUtmFake } from '../../../../test/fakes/sophos-utm-fake.js';
import { memoryLogger } from '../../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import { parseAddress } from '../../addresses.js';
import { SophosUtmClient, UTM_PLACEHOLDER, isUtmPlaceholder } from './sophosutm-client.js';

const KEY = 'utm-client-token-1';
const GROUP = 'REF_NetGroWeb';
const tls = selfSignedCertificate();
let fake: SophosUtmFake;
const clients: SophosUtmClient[] = [];
beforeEach(async () => {
  fake = await SophosUtmFake.start({ apiKey: KEY, tls });
  fake.addGroup(GROUP, 'web');
});
afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await fake.close();
});

function client(): SophosUtmClient {
  const made = new SophosUtmClient({
    hostname: fake.hostname,
    insecure: true,
    apiKey: KEY,
    logger: memoryLogger().logger,
  });
  clients.push(made);
  return made;
}

describe('SophosUtmClient.setMembers', () => {
  it('writes the member list with PATCH and nothing else of the group', async () => {
    const utm = client();
    const ref = await utm.create('host', { name: 'kk_192.0.2.1', address: '192.0.2.1' }, 'host');
    expect(await utm.setMembers(GROUP, [ref])).toEqual([ref]);
    const write = fake.requests.filter((request) => request.path === `/api/objects/network/group/${GROUP}`);
    expect(write.map((request) => request.method)).toEqual(['PATCH']);
    expect(await utm.group(GROUP)).toMatchObject({ name: 'web', members: [ref] });
  });

  it('empties a group the UTM lets be empty, with no placeholder', async () => {
    const utm = client();
    const ref = await utm.create('host', { name: 'kk_192.0.2.1', address: '192.0.2.1' }, 'host');
    await utm.setMembers(GROUP, [ref]);
    expect(await utm.setMembers(GROUP, [])).toEqual([]);
    expect(fake.members(GROUP)).toEqual([]);
    expect(fake.objects().some(isUtmPlaceholder)).toBe(false);
  });

  it('keeps the placeholder in a group the UTM refuses to empty, and drops it with the next member', async () => {
    fake.refuseEmptyGroups();
    const utm = client();
    const first = await utm.create('host', { name: 'kk_192.0.2.1', address: '192.0.2.1' }, 'host');
    await utm.setMembers(GROUP, [first]);
    const [placeholder] = await utm.setMembers(GROUP, []);
    expect(fake.memberNames(GROUP)).toEqual([UTM_PLACEHOLDER.name]);
    expect(fake.object(placeholder ?? '')).toMatchObject({ address: UTM_PLACEHOLDER.address, _type: 'network/host' });
    // Its name carries Postern's marker but no address: never read as a grant.
    expect(parseAddress(UTM_PLACEHOLDER.name.slice('kk_'.length))).toBeNull();

    // After a restart the client learns the placeholder from the listing the driver reads anyway.
    const restarted = client();
    await restarted.objects('host');
    expect(restarted.placeholderRef).toBe(placeholder);
    const second = await restarted.create('host', { name: 'kk_192.0.2.2', address: '192.0.2.2' }, 'host');
    const group = await restarted.group(GROUP);
    expect(await restarted.setMembers(GROUP, [...(group?.members ?? []), second])).toEqual([second]);
    expect(fake.memberNames(GROUP)).toEqual(['kk_192.0.2.2']);

    // Emptied again: the same placeholder object, not a second one.
    expect(await restarted.setMembers(GROUP, [])).toEqual([placeholder]);
    expect(fake.objects().filter(isUtmPlaceholder)).toHaveLength(1);
  });

  it('never takes an object of the placeholder name that opens something else', async () => {
    fake.refuseEmptyGroups();
    fake.addHost(UTM_PLACEHOLDER.name, '192.0.2.99');
    const utm = client();
    await expect(utm.setMembers(GROUP, [])).rejects.toThrow(/exists but does not hold only 255\.255\.255\.255/);
    expect(fake.members(GROUP)).toEqual([]);
  });

  it('fails with restd reason when even the placeholder is refused', async () => {
    fake.refuseEmptyGroups();
    fake.refuseAddress(UTM_PLACEHOLDER.address);
    const utm = client();
    await expect(utm.setMembers(GROUP, [])).rejects.toThrow(
      /could not create network host kk_postern-placeholder: HTTP 422/,
    );
  });
});
