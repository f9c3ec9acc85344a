import { describe, expect, it } from 'vitest';
import { isNotFound, isSuccess, parseAclList, parseGetAcl, parseShowAclEntries } from './haproxy-output.js';

describe('parseShowAclEntries', () => {
  it('reads the patterns of `show acl #<id>`', () => {
    const answer = '0x7f8ed80465b0 10.0.0.1\n0x557499c974b0 2001:db8::1\n0x557499c97620 10.0.0.0/24';

    expect(parseShowAclEntries(answer)).toEqual(['10.0.0.1', '2001:db8::1', '10.0.0.0/24']);
  });

  it('reads an empty ACL as no patterns', () => {
    expect(parseShowAclEntries('')).toEqual([]);
  });

  it("throws HAProxy's refusal as it said it", () => {
    expect(() => parseShowAclEntries('Unknown ACL identifier. Please use #<id> or <file>.')).toThrow(
      'Unknown ACL identifier. Please use #<id> or <file>.',
    );
  });
});

describe('parseAclList', () => {
  it('reads the id and file of each ACL in a bare `show acl`', () => {
    const answer = [
      '# id (file) description',
      "0 (/tmp/hx/granted.acl) pattern loaded from file '/tmp/hx/granted.acl' used by acl at file 'h.cfg' line 10. curr_ver=0 next_ver=0 entry_cnt=0",
      "1 () acl 'src' file 'h.cfg' line 10. curr_ver=0 next_ver=0 entry_cnt=0",
    ].join('\n');

    expect(parseAclList(answer)).toEqual([
      expect.objectContaining({ id: '0', file: '/tmp/hx/granted.acl' }),
      expect.objectContaining({ id: '1', file: '' }),
    ]);
  });
});

describe('answers to add and del', () => {
  it('reads an empty answer as done and anything else as a refusal', () => {
    expect(isSuccess('')).toBe(true);
    expect(isSuccess("'bogus' is not a valid IPv4 or IPv6 address.")).toBe(false);
  });

  it('reads "Key not found." as absent', () => {
    expect(isNotFound('Key not found.')).toBe(true);
    expect(isNotFound('Permission denied')).toBe(false);
  });
});

describe('parseGetAcl', () => {
  it('reads the matching pattern', () => {
    expect(parseGetAcl('type=ip, case=sensitive, match=yes, idx=tree, pattern="10.0.0.0/8"')).toEqual({
      match: true,
      pattern: '10.0.0.0/8',
    });
  });

  it('reads no match', () => {
    expect(parseGetAcl('type=ip, case=sensitive, match=no')).toEqual({ match: false, pattern: null });
  });

  it("throws HAProxy's refusal", () => {
    expect(() => parseGetAcl('Unknown ACL identifier. Please use #<id> or <file>.')).toThrow('Unknown ACL identifier');
  });
});
