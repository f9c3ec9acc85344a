import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '@postern/protocol';
import { allowlistKnoc, haproxyKnoc, ipsetKnoc, nftablesKnoc, scriptKnoc } from '@/test-support/records/knocs';
import { knocRecord } from '@/test-support/fixtures';
import { editTargetId, keyLeftBehind, knocDetails, listedKnocs, verification } from './knoc-types';
import { shellQuote } from './shell-quote';

const ORIGIN = 'https://postern.example.com';

const key = (scopes: string[]): ApiKeyRecord => ({
  ID: 'key-1',
  Name: 'firewall poller',
  Scopes: scopes,
  Resources: [],
  AllowedFrom: [],
  ExpiredAfter: null,
  CreatedAt: '2026-01-01T00:00:00.000Z',
  LastUsedAt: null,
});

const commands = (knoc: Parameters<typeof verification>[0]) => verification(knoc, ORIGIN).commands.map((c) => c.value);

describe('knoc details by type', () => {
  it.each([
    ['ipset', ipsetKnoc(), { key: 'knocsScreen.details.ipset', values: { sets: 'billing4, billing6' } }],
    [
      'nftables',
      nftablesKnoc(),
      { key: 'knocsScreen.details.nftables', values: { family: 'inet', table: 'postern', sets: 'allow4, allow6' } },
    ],
    ['allowlist', allowlistKnoc(), { key: 'knocsScreen.details.allowlist' }],
    ['passive+', allowlistKnoc({ Children: ['k-child'] }), { key: 'knocsScreen.details.allowlistPassivePlus' }],
    ['haproxy', haproxyKnoc('unix', '/run/h.sock'), { key: 'knocsScreen.details.haproxy', values: { id: '7' } }],
    ['script', scriptKnoc(), { key: 'knocsScreen.details.script', values: { command: 'mikrotik.sh' } }],
    [
      'panos',
      knocRecord({ BackendType: 'panos', AclConfig: { panos: { GroupName: 'postern-users', EDLName: '' } } }),
      { key: 'knocsScreen.details.vendor', values: { object: 'postern-users' }, vendorType: 'panos' },
    ],
    [
      'aws',
      knocRecord({ BackendType: 'aws', AclConfig: { aws: { SecurityGroupId: 'sg-123', Port: 22 } } }),
      { key: 'knocsScreen.details.vendor', values: { object: 'sg-123' }, vendorType: 'aws' },
    ],
    [
      'firepower',
      knocRecord({ BackendType: 'firepower', AclConfig: { firepower: { GroupUUID: ' 0050-56a4 ' } } }),
      { key: 'knocsScreen.details.vendor', values: { object: '0050-56a4' }, vendorType: 'firepower' },
    ],
    [
      'sophosutm',
      knocRecord({ BackendType: 'sophosutm', AclConfig: { sophosutm: { GroupReference: 'REF_NetGroPostern' } } }),
      { key: 'knocsScreen.details.vendor', values: { object: 'REF_NetGroPostern' }, vendorType: 'sophosutm' },
    ],
    [
      'sophossfos, both families',
      knocRecord({
        BackendType: 'sophossfos',
        AclConfig: { sophossfos: { GroupName: 'kk_users', GroupNameV6: 'kk_users6' } },
      }),
      { key: 'knocsScreen.details.vendor', values: { object: 'kk_users, kk_users6' }, vendorType: 'sophossfos' },
    ],
    [
      'sophossfos, IPv4 only',
      knocRecord({ BackendType: 'sophossfos', AclConfig: { sophossfos: { GroupName: 'kk_users', GroupNameV6: '' } } }),
      { key: 'knocsScreen.details.vendor', values: { object: 'kk_users' }, vendorType: 'sophossfos' },
    ],
    [
      'azure',
      knocRecord({ BackendType: 'azure', AclConfig: { azure: { NsgName: 'web-nsg', Priority: 200 } } }),
      { key: 'knocsScreen.details.vendor', values: { object: 'web-nsg' }, vendorType: 'azure' },
    ],
    [
      'a vendor field that is a number',
      knocRecord({ BackendType: 'fortios', AclConfig: { fortios: { Name: 42 } } }),
      { key: 'knocsScreen.details.vendor', values: { object: '42' }, vendorType: 'fortios' },
    ],
    [
      'a vendor knoc with no ACL fields',
      knocRecord({ BackendType: 'fortios', AclConfig: {} }),
      { key: 'knocsScreen.details.vendor', values: { object: '' }, vendorType: 'fortios' },
    ],
    [
      'a vendor field that is neither text nor a number',
      knocRecord({ BackendType: 'aws', AclConfig: { aws: { SecurityGroupId: ['sg-1'] } } }),
      { key: 'knocsScreen.details.vendor', values: { object: '' }, vendorType: 'aws' },
    ],
    [
      'knocproxy',
      knocRecord({
        BackendType: 'knocproxy',
        AclConfig: { knocproxy: { Name: 'intranet' } },
        BackendConfig: { knocproxy: { Address: '10.1.2.3:8443' } },
      }),
      { key: 'knocsScreen.details.knocproxy', values: { name: 'intranet', address: '10.1.2.3:8443' } },
    ],
  ])('%s', (_name, knoc, expected) => {
    expect(knocDetails(knoc)).toEqual(expected);
  });
});

describe('verification instructions', () => {
  it('requests the allowlist on the server origin with the apiuser key', () => {
    expect(commands(allowlistKnoc())).toEqual([
      `${ORIGIN}/api/v1/allowlists/k-allow/tok123.txt`,
      `curl -u 'apiuser:<API key>' ${ORIGIN}/api/v1/allowlists/k-allow/tok123.txt`,
    ]);
  });

  it('requests the allowlist without credentials when access is by IP', () => {
    const knoc = allowlistKnoc({
      AclConfig: { allowlist: { Token: 't', ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['10.0.0.0/8'] } },
    });
    expect(commands(knoc)[1]).toBe(`curl ${ORIGIN}/api/v1/allowlists/k-allow/t.txt`);
    expect(verification(knoc, ORIGIN).steps[0]).toEqual({
      key: 'knocsScreen.verify.allowlist.byIp',
      values: { addresses: '10.0.0.0/8' },
    });
  });

  it('reads the HAProxy ACL through a unix socket or a tcp one', () => {
    expect(commands(haproxyKnoc('unix', '/var/run/haproxy.sock'))).toEqual([
      `echo 'show acl #7' | socat stdio /var/run/haproxy.sock`,
    ]);
    expect(commands(haproxyKnoc('tcp', '10.0.0.5:9999'))).toEqual([
      `echo 'show acl #7' | socat stdio TCP:10.0.0.5:9999`,
    ]);
  });

  it('requests through the knoc proxy on its tcp address or unix socket', () => {
    const proxy = (Protocol: string, Address: string) =>
      knocRecord({
        BackendType: 'knocproxy',
        URL: 'http://intranet.local',
        AclConfig: { knocproxy: { Name: 'intranet' } },
        BackendConfig: { knocproxy: { Protocol, Address } },
      });
    expect(commands(proxy('tcp', 'proxy.example.com:8443'))).toEqual(['curl -ik https://proxy.example.com:8443/']);
    expect(commands(proxy('unix', '/run/knoc.sock'))).toEqual([
      'curl -i --unix-socket /run/knoc.sock http://localhost/',
    ]);
    expect(verification(proxy('tcp', 'p:1'), ORIGIN).steps[0]?.values).toEqual({
      address: 'p:1',
      url: 'http://intranet.local',
    });
  });

  it('lists every ipset of a Linux knoc', () => {
    expect(commands(ipsetKnoc())).toEqual(['ipset list billing4', 'ipset list billing6']);
    expect(commands(ipsetKnoc({ AclConfig: { ipset: { V4SetName: '', V6SetName: 'only6' } } }))).toEqual([
      'ipset list only6',
    ]);
  });

  it('lists every set of an nftables knoc in its family and table', () => {
    expect(commands(nftablesKnoc())).toEqual(['nft list set inet postern allow4', 'nft list set inet postern allow6']);
    const ip6 = nftablesKnoc({
      BackendConfig: { nftables: { Family: 'ip6', Table: 'edge' } },
      AclConfig: { nftables: { V4SetName: '', V6SetName: 'only6' } },
    });
    expect(commands(ip6)).toEqual(['nft list set ip6 edge only6']);
    expect(verification(ip6, ORIGIN).steps).toEqual([
      { key: 'knocsScreen.verify.nftables.intro', values: { agent: 'edge', family: 'ip6', table: 'edge' } },
    ]);
  });

  it("names a script's program, its knoc_* variables and the knoc's own", () => {
    const result = verification(scriptKnoc(), ORIGIN);
    expect(result.commands.map((c) => c.value)).toEqual(['mikrotik.sh add router_acl <address>']);
    expect(result.steps[1]?.values?.variables).toBe(
      'knoc_action, knoc_aclname, knoc_username, knoc_cidr, knoc_ipaddr, TOKEN',
    );
  });

  it('points a vendor knoc at its object on the device, the EDL for passive+ Palo Alto', () => {
    const group = knocRecord({ BackendType: 'fortios', AclConfig: { fortios: { Name: 'kk_staff' } } });
    expect(verification(group, ORIGIN).steps[0]?.key).toBe('knocsScreen.verify.vendor.fortios');
    expect(commands(group)).toEqual(['kk_staff']);
    const edl = knocRecord({ BackendType: 'panos', AclConfig: { panos: { GroupName: '', EDLName: 'postern-edl' } } });
    expect(verification(edl, ORIGIN).steps[0]).toEqual({
      key: 'knocsScreen.verify.vendor.edl',
      values: { object: 'postern-edl' },
      vendorType: 'panos',
    });
  });
});

describe('shell quoting', () => {
  it.each([
    ['billing4', 'billing4'],
    ['my set', `'my set'`],
    [`it's`, `'it'\\''s'`],
  ])('%s becomes %s', (value, quoted) => {
    expect(shellQuote(value)).toBe(quoted);
  });
});

describe('rules of the list', () => {
  it('edits a passive+ knoc through its hidden child, any other knoc through itself', () => {
    expect(editTargetId(allowlistKnoc({ Children: ['k-child'] }))).toBe('k-child');
    expect(editTargetId(allowlistKnoc())).toBe('k-allow');
  });

  it('offers to delete the allowlist key only when it had one scope or fewer', () => {
    expect(keyLeftBehind(allowlistKnoc(), [key(['allowlist.read:k-allow'])])?.ID).toBe('key-1');
    expect(keyLeftBehind(allowlistKnoc(), [key([])])?.ID).toBe('key-1');
    expect(keyLeftBehind(allowlistKnoc(), [key(['allowlist.read:k-allow', 'allowlist.read:k-2'])])).toBeNull();
    expect(keyLeftBehind(ipsetKnoc(), [key([])])).toBeNull();
    expect(keyLeftBehind(allowlistKnoc(), [])).toBeNull();
  });

  it('leaves out knocs hidden from admins', () => {
    expect(listedKnocs([ipsetKnoc(), allowlistKnoc({ ID: 'child', HideFromAdmins: true })]).map((k) => k.ID)).toEqual([
      'k-ipset',
    ]);
  });
});
