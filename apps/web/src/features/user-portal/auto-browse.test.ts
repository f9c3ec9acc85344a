import { describe, expect, it } from 'vitest';
import { aclEntry } from '../../test-support/fixtures';
import { autoBrowseTarget } from './auto-browse';

const browse = (overrides: Parameters<typeof aclEntry>[0]) =>
  aclEntry({ AutoBrowseUsers: true, URL: 'https://app.example.com/start?x=1', ...overrides });

describe('single-ACL auto-browse', () => {
  it('goes to the one auto-browse ACL with its UriToken as knoctoken', () => {
    const target = autoBrowseTarget([browse({ Config: { UriToken: 'tok 1' } }), aclEntry({ ACLID: 'other' })]);
    expect(target?.url).toBe('https://app.example.com/start?x=1&knoctoken=tok+1');
  });

  it('adds no knoctoken when the ACL has no UriToken', () => {
    expect(autoBrowseTarget([browse({})])?.url).toBe('https://app.example.com/start?x=1');
  });

  it('does nothing with two auto-browse ACLs, or none', () => {
    expect(autoBrowseTarget([browse({ ACLID: 'a' }), browse({ ACLID: 'b' })])).toBeNull();
    expect(autoBrowseTarget([aclEntry({ URL: 'https://app.example.com' })])).toBeNull();
  });

  it('ignores ACLs without an http(s) URL and hidden ones when counting', () => {
    expect(autoBrowseTarget([browse({ ACLID: 'a', URL: 'ssh://host' })])).toBeNull();
    expect(autoBrowseTarget([browse({ ACLID: 'a' }), browse({ ACLID: 'b', URL: 'rdp://desk' })])?.acl.ACLID).toBe('a');
    expect(autoBrowseTarget([browse({ ACLID: 'a' }), browse({ ACLID: 'b', HideFromUsers: true })])?.acl.ACLID).toBe(
      'a',
    );
  });
});
