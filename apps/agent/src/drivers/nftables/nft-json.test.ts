import { describe, expect, it } from 'vitest';
import { isGlobalNftError, parseNftError, parseSetListing } from './nft-json.js';

describe('parseSetListing', () => {
  it('reads nft 1.0.6 `list set` output: elements with timeout and expires, canonical addresses', () => {
    const output = JSON.stringify({
      nftables: [
        { metainfo: { version: '1.0.6', release_name: 'Lester Gooch #5', json_schema_version: 1 } },
        {
          set: {
            family: 'inet',
            name: 'allow6',
            table: 'postern',
            type: 'ipv6_addr',
            handle: 2,
            flags: ['interval', 'timeout'],
            elem: [
              { elem: { val: '2001:DB8:0:0::7', timeout: 300, expires: 299, comment: 'x' } },
              { elem: { val: { prefix: { addr: '2001:db8:1::', len: 48 } }, timeout: 60, expires: 59 } },
              '2001:db8::9',
              { range: ['2001:db8::10', '2001:db8::20'] },
            ],
          },
        },
      ],
    });

    expect(parseSetListing(output)).toEqual([
      {
        family: 'inet',
        table: 'postern',
        name: 'allow6',
        type: 'ipv6_addr',
        flags: ['interval', 'timeout'],
        elements: [
          { address: '2001:db8::7', expires: 299 },
          { address: '2001:db8:1::/48', expires: 59 },
          { address: '2001:db8::9', expires: null },
        ],
      },
    ]);
  });

  it('reads every set of `list sets`, leaving out families Postern does not write', () => {
    const output = JSON.stringify({
      nftables: [
        { set: { family: 'ip', name: 'a4', table: 'filter', type: 'ipv4_addr', handle: 1, flags: ['timeout'] } },
        { set: { family: 'bridge', name: 'b', table: 'br', type: 'ipv4_addr', handle: 1 } },
        { set: { family: 'inet', name: 'pairs', table: 't', type: ['ipv4_addr', 'inet_service'], handle: 3 } },
      ],
    });

    expect(parseSetListing(output)).toEqual([
      { family: 'ip', table: 'filter', name: 'a4', type: 'ipv4_addr', flags: ['timeout'], elements: [] },
      { family: 'inet', table: 't', name: 'pairs', type: 'ipv4_addr . inet_service', flags: [], elements: [] },
    ]);
  });

  it('throws on what is not nft’s JSON document', () => {
    expect(() => parseSetListing('table inet postern {')).toThrow();
    expect(() => parseSetListing('{"sets": []}')).toThrow('nft printed no "nftables" array');
  });
});

describe('parseNftError', () => {
  it.each([
    [
      'internal:0:0-0: Error: Could not process rule: No such file or directory\n\n',
      'Could not process rule: No such file or directory',
    ],
    [
      'Error: No such file or directory\nlist set inet postern allow4\n              ^^^^^^^\n',
      'No such file or directory',
    ],
    [
      'netlink: Error: cache initialization failed: Operation not permitted\n',
      'cache initialization failed: Operation not permitted',
    ],
    ['sudo: a password is required\n', 'sudo: a password is required'],
    ['', 'nft failed without a message'],
  ])('%j → %s', (stderr, message) => {
    expect(parseNftError(stderr)).toBe(message);
  });

  it('tells errors no entry can avoid from errors about one set or element', () => {
    expect(isGlobalNftError('cache initialization failed: Operation not permitted')).toBe(true);
    expect(isGlobalNftError('sudo: a password is required')).toBe(true);
    expect(isGlobalNftError('nft did not finish within 30 s and was stopped')).toBe(true);
    expect(isGlobalNftError('Could not process rule: No such file or directory')).toBe(false);
    expect(isGlobalNftError('Could not process rule: Invalid argument')).toBe(false);
  });
});
