import { describe, expect, it } from 'vitest';
import type { UserAuthType } from '@postern/protocol';
import { licensingSummary } from '@/test-support/fixtures';
import { canCreateUsers, licenceSessionLimit, userLimitNotice } from './user-limit';

const users = (count: number, authType: UserAuthType = 'local') =>
  Array.from({ length: count }, () => ({ AuthType: authType }));

describe('userLimitNotice', () => {
  it.each([
    ['within the limit', 10, { kind: 'none' }],
    ['over the limit, grace left', 11, { kind: 'grace', count: 11, limit: 10, overage: 5, percent: 50, remaining: 4 }],
    [
      'one short of limit plus overage',
      14,
      { kind: 'grace', count: 14, limit: 10, overage: 5, percent: 50, remaining: 1 },
    ],
    [
      'at limit plus overage',
      15,
      { kind: 'reached', count: 15, limit: 10, percent: 50, overLimit: true, showBanner: true },
    ],
    [
      'beyond limit plus overage',
      17,
      { kind: 'reached', count: 17, limit: 10, percent: 50, overLimit: true, showBanner: true },
    ],
  ])('%s (%i users)', (_case, count, expected) => {
    expect(userLimitNotice(licensingSummary(), users(count))).toEqual(expected);
  });

  it('says nothing over the limit when SAML users exist, while grace is left', () => {
    expect(userLimitNotice(licensingSummary(), [...users(10), ...users(2, 'SAML')])).toEqual({ kind: 'none' });
  });

  it('still blocks creation at the limit plus overage when SAML users exist, without the banner text', () => {
    expect(userLimitNotice(licensingSummary(), [...users(14), ...users(1, 'SAML')])).toMatchObject({
      kind: 'reached',
      showBanner: false,
    });
  });

  it('blocks at the limit itself when the licence has no overage', () => {
    const notice = userLimitNotice(licensingSummary({ UserLimitOverage: 0, UserLimitOveragePercentage: 0 }), users(10));
    expect(notice).toEqual({ kind: 'reached', count: 10, limit: 10, percent: 0, overLimit: false, showBanner: false });
    expect(canCreateUsers(notice)).toBe(false);
  });

  it('never limits an unlicensed installation', () => {
    const notice = userLimitNotice(licensingSummary({ Licensed: false }), users(500));
    expect(notice).toEqual({ kind: 'none' });
    expect(canCreateUsers(notice)).toBe(true);
  });
});

describe('licenceSessionLimit', () => {
  it('is the licence’s SessionLimit when licensed', () => {
    expect(licenceSessionLimit(licensingSummary({ SessionLimit: 4 }))).toBe(4);
  });

  it('is none when unlicensed', () => {
    expect(licenceSessionLimit(licensingSummary({ Licensed: false, SessionLimit: 0 }))).toBeNull();
  });
});
