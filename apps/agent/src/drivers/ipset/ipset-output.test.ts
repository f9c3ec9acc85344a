import { describe, expect, it } from 'vitest';
import {
  isGlobalError,
  isSetLevelError,
  parseIpsetError,
  parseSaveMembers,
  parseSaveTimeouts,
  parseSetHeaders,
} from './ipset-output.js';

describe('parseSaveMembers', () => {
  it('reads the members of the set from `ipset list SET -output save`', () => {
    const output = [
      'create granted_v4 hash:ip family inet hashsize 1024 maxelem 65536 timeout 0 bucketsize 12 initval 0x8fb437d8',
      'add granted_v4 10.0.0.2 timeout 49',
      'add granted_v4 10.0.0.1 timeout 299',
      'add other 10.9.9.9 timeout 5',
      '',
    ].join('\n');

    expect(parseSaveMembers(output, 'granted_v4')).toEqual(['10.0.0.2', '10.0.0.1']);
  });

  it('reads networks and IPv6 members, and an empty set as none', () => {
    expect(parseSaveMembers('add n 10.0.0.0/24 timeout 9\nadd n 2001:db8::/64\n', 'n')).toEqual([
      '10.0.0.0/24',
      '2001:db8::/64',
    ]);
    expect(parseSaveMembers('create n hash:net family inet timeout 0\n', 'n')).toEqual([]);
  });
});

describe('parseSaveTimeouts', () => {
  it('reads the seconds each member of the set has left; members without a timeout are absent', () => {
    const output = [
      'create granted_v4 hash:net family inet hashsize 1024 maxelem 65536 timeout 0',
      'add granted_v4 10.0.0.2 timeout 393',
      'add granted_v4 10.0.0.0/24 timeout 7 comment "x"',
      'add granted_v4 10.0.0.9',
      'add other 10.9.9.9 timeout 5',
      '',
    ].join('\n');

    expect([...parseSaveTimeouts(output, 'granted_v4')]).toEqual([
      ['10.0.0.2', 393],
      ['10.0.0.0/24', 7],
    ]);
  });
});

describe('parseSetHeaders', () => {
  it('reads each set of `ipset list -terse` with its type, family and timeout support', () => {
    const output = [
      'Name: granted_v4',
      'Type: hash:ip',
      'Revision: 6',
      'Header: family inet hashsize 1024 maxelem 65536 timeout 0 bucketsize 12 initval 0x8fb437d8',
      'Size in memory: 14488',
      'References: 1',
      'Number of entries: 256',
      '',
      'Name: granted_v6',
      'Type: hash:net',
      'Revision: 7',
      'Header: family inet6 hashsize 1024 maxelem 65536 timeout 0 bucketsize 12 initval 0xf6d45513',
      '',
      'Name: plain',
      'Type: hash:ip',
      'Header: family inet hashsize 1024 maxelem 65536 bucketsize 12 initval 0xb9c1053f',
      '',
      'Name: macs',
      'Type: hash:mac',
      'Header: hashsize 1024 maxelem 65536 bucketsize 12 initval 0x1',
      '',
      'Name: both',
      'Type: list:set',
      'Header: size 8',
    ].join('\n');

    expect(parseSetHeaders(output)).toEqual([
      { name: 'granted_v4', type: 'hash:ip', family: 'inet', timeout: true },
      { name: 'granted_v6', type: 'hash:net', family: 'inet6', timeout: true },
      { name: 'plain', type: 'hash:ip', family: 'inet', timeout: false },
      { name: 'macs', type: 'hash:mac', family: null, timeout: false },
      { name: 'both', type: 'list:set', family: null, timeout: false },
    ]);
  });

  it('reads no sets from empty output', () => {
    expect(parseSetHeaders('')).toEqual([]);
  });
});

describe('parseIpsetError', () => {
  it('reads the failing line of a restore and the message without the program prefix', () => {
    const stderr = 'ipset v7.17: Error in line 2: Timeout cannot be used: set was created without timeout support\n';

    expect(parseIpsetError(stderr)).toEqual({
      line: 2,
      message: 'Timeout cannot be used: set was created without timeout support',
    });
  });

  it('keeps a message without a line, dropping the help hint', () => {
    const stderr = "ipset v7.17: Unknown argument: `timeoutx'\nTry `ipset help' for more information.\n";

    expect(parseIpsetError(stderr)).toEqual({ line: null, message: "Unknown argument: `timeoutx'" });
  });

  it('says so when ipset failed silently', () => {
    expect(parseIpsetError('')).toEqual({ line: null, message: 'ipset failed without a message' });
  });
});

describe('error kinds', () => {
  it.each([
    ['The set with the given name does not exist', true],
    ['Timeout cannot be used: set was created without timeout support', true],
    ['Syntax error: cannot parse 10.1.1.1: resolving to IPv6 address failed', false],
    ['Hash is full, cannot add more elements', false],
  ])('treats "%s" as about the whole set: %s', (message, expected) => {
    expect(isSetLevelError(message)).toBe(expected);
  });

  it.each([
    ['Kernel error received: Operation not permitted', true],
    ['sudo: a password is required', true],
    ['The set with the given name does not exist', false],
  ])('treats "%s" as stopping every entry: %s', (message, expected) => {
    expect(isGlobalError(message)).toBe(expected);
  });
});
