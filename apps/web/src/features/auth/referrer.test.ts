import { describe, expect, it } from 'vitest';
import { aclForReferrer, dropReferrer, heldReferrer, holdReferrer, REFERRER_MAX_AGE_MS, urlBase } from './referrer';

const acls = [{ URL: 'https://wiki.example.com/start' }, { URL: 'ssh://bastion.example.com' }, { URL: '' }];

describe('the login referrer', () => {
  it('matches an ACL by the base of its URL: scheme, host and port', () => {
    expect(aclForReferrer('https://wiki.example.com/page?id=7', acls)).toBe(acls[0]);
    expect(aclForReferrer('https://WIKI.example.com', acls)).toBe(acls[0]);
    expect(aclForReferrer('http://wiki.example.com/page', acls)).toBeUndefined();
    expect(aclForReferrer('https://wiki.example.com:8443/page', acls)).toBeUndefined();
    expect(aclForReferrer('https://wiki.example.com.evil.test/', acls)).toBeUndefined();
    expect(aclForReferrer('https://evil.test/?https://wiki.example.com', acls)).toBeUndefined();
    expect(aclForReferrer('javascript:alert(1)', acls)).toBeUndefined();
  });

  it('has no base for anything but http and https', () => {
    expect(urlBase('https://a.example:444/x')).toBe('https://a.example:444');
    expect(urlBase('/home')).toBeNull();
    expect(urlBase('ssh://a.example')).toBeNull();
  });

  it('is held for the sign-in, forgotten when the login has none, and goes stale', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    holdReferrer('https://wiki.example.com/page', now);
    expect(heldReferrer(now + 1_000)).toBe('https://wiki.example.com/page');
    expect(heldReferrer(now + REFERRER_MAX_AGE_MS + 1)).toBeNull();
    holdReferrer(null, now);
    expect(heldReferrer(now)).toBeNull();
    holdReferrer('javascript:alert(1)', now);
    expect(heldReferrer(now)).toBeNull();
    holdReferrer('https://wiki.example.com/', now);
    dropReferrer();
    expect(heldReferrer(now)).toBeNull();
  });
});
