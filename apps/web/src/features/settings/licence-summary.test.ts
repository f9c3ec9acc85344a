import { describe, expect, it } from 'vitest';
import { licenceExpiry, licenceUsage, machineCount } from './licence-summary';

const NOW = new Date('2026-01-01T12:00:00Z');

describe('licenceExpiry', () => {
  it.each([
    ['no licence', { Expires: null, Expired: false }, { kind: 'none' }],
    ['expired by the server', { Expires: '2027-01-01T00:00:00Z', Expired: true }, { kind: 'expired' }],
    ['date already past', { Expires: '2026-01-01T11:59:59Z', Expired: false }, { kind: 'expired' }],
    [
      'whole days, rounded down',
      { Expires: '2026-01-03T11:00:00Z', Expired: false },
      { kind: 'expires', days: 1, soon: true },
    ],
    [
      '60 days is still soon',
      { Expires: '2026-03-02T12:00:00Z', Expired: false },
      { kind: 'expires', days: 60, soon: true },
    ],
    [
      '61 days is not soon',
      { Expires: '2026-03-03T12:00:00Z', Expired: false },
      { kind: 'expires', days: 61, soon: false },
    ],
  ])('%s', (_name, status, expected) => {
    expect(licenceExpiry(status, NOW)).toEqual(expected);
  });
});

describe('licenceUsage', () => {
  it.each([
    ['within the limit', 50, { state: 'within', limitIncludingOverage: 75, remainingSeats: 25, percentOverLimit: 0 }],
    [
      'over the limit, within the overage',
      60,
      { state: 'grace', limitIncludingOverage: 75, remainingSeats: 15, percentOverLimit: 20 },
    ],
    [
      'exactly at limit plus overage',
      75,
      { state: 'grace', limitIncludingOverage: 75, remainingSeats: 0, percentOverLimit: 50 },
    ],
    [
      'beyond limit plus overage',
      76,
      { state: 'denied', limitIncludingOverage: 75, remainingSeats: 0, percentOverLimit: 52 },
    ],
  ])('%s', (_name, UserCount, expected) => {
    expect(licenceUsage({ UserCount, UserLimit: 50, UserLimitOverage: 25 })).toEqual(expected);
  });
});

describe('machineCount', () => {
  it('gives the maximum when the licence sets one', () => {
    expect(machineCount({ MachineCount: 2, MaxMachines: 5 })).toEqual({ count: 2, max: 5 });
  });

  it('gives no maximum when the licence sets none (0)', () => {
    expect(machineCount({ MachineCount: 2, MaxMachines: 0 })).toEqual({ count: 2, max: null });
  });
});
