import { describe, expect, it } from 'vitest';
import { LICENCE_EXPIRY_WARNING_DAYS } from '@postern/protocol';
import { licenceExpiryWarning, licenceUsage, type LicenceUsage } from './licence-usage';
import { daysFromNow } from '@/test-support/time';
import { licensing } from '@/test-support/records/banners';

describe('licence usage over the user limit', () => {
  // 100 licensed users, 50 grace seats: the bar spans 150 seats.
  const summary = licensing({ UserLimit: 100, UserLimitOverage: 50 });

  it.each<[number, Partial<LicenceUsage> | null]>([
    [0, null],
    [100, null],
    [101, { level: 'grace', remaining: 49, overPercent: 1, licensedPercent: 66.7, gracePercent: 0.7 }],
    [129, { level: 'grace', remaining: 21, overPercent: 29 }],
    // USER_LIMIT_WARNING_PERCENT: from 30% over the limit the banner warns.
    [130, { level: 'warning', remaining: 20, overPercent: 30, licensedPercent: 66.7, gracePercent: 20 }],
    [150, { level: 'warning', remaining: 0, overPercent: 50, licensedPercent: 66.7, gracePercent: 33.3 }],
    [151, { level: 'beyond', remaining: 0, overPercent: 51, licensedPercent: 66.7, gracePercent: 33.3 }],
  ])('with %i users: %j', (users, expected) => {
    const usage = licenceUsage(summary, users);
    if (expected === null) expect(usage).toBeNull();
    else expect(usage).toMatchObject({ licensed: 100, grace: 50, current: users, ...expected });
  });

  it('warns of nothing when unlicensed, however many users', () => {
    expect(licenceUsage(licensing({ Licensed: false }), 10_000)).toBeNull();
  });

  it('is beyond at once without a grace allowance', () => {
    expect(licenceUsage(licensing({ UserLimit: 10, UserLimitOverage: 0 }), 11)).toMatchObject({
      level: 'beyond',
      remaining: 0,
      licensedPercent: 100,
      gracePercent: 0,
    });
  });
});

describe('licence expiry warning', () => {
  const now = Date.parse('2031-03-01T12:00:00Z');
  const status = (expires: string | null, overrides: { Cloud?: boolean; Licensed?: boolean } = {}) => ({
    Cloud: overrides.Cloud ?? false,
    Licensing: licensing({ Expires: expires, Licensed: overrides.Licensed ?? true }),
  });

  it.each<[string, ReturnType<typeof status>, number | null]>([
    ['a year away', status(daysFromNow(365, now)), null],
    ['just past the window', status(daysFromNow(LICENCE_EXPIRY_WARNING_DAYS + 0.01, now)), null],
    ['exactly at the window', status(daysFromNow(LICENCE_EXPIRY_WARNING_DAYS, now)), LICENCE_EXPIRY_WARNING_DAYS],
    ['ten days away', status(daysFromNow(10, now)), 10],
    ['half a day away', status(daysFromNow(0.5, now)), 1],
    ['already past', status(daysFromNow(-1, now)), null],
    ['on a cloud installation', status(daysFromNow(10, now), { Cloud: true }), null],
    ['unlicensed', status(daysFromNow(10, now), { Licensed: false }), null],
    ['without an expiry', status(null), null],
  ])('%s: %s days', (_name, input, days) => {
    expect(licenceExpiryWarning(input, now)?.days ?? null).toBe(days);
  });
});
