import { describe, expect, it } from 'vitest';
import { daysUntil, formatCountdown, secondsUntil } from './countdown';

describe('countdown', () => {
  it.each([
    [0, '00:00:00'],
    [59, '00:00:59'],
    [61, '00:01:01'],
    [8 * 3600 - 1, '07:59:59'],
    [100 * 3600 + 5, '100:00:05'],
    [-3, '00:00:00'],
  ])('shows %i seconds as %s', (seconds, text) => {
    expect(formatCountdown(seconds)).toBe(text);
  });

  it('counts whole seconds to the end and stops at zero', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(secondsUntil('2030-01-01T00:00:10.900Z', now)).toBe(10);
    expect(secondsUntil('2029-12-31T23:59:00Z', now)).toBe(0);
    expect(secondsUntil('not a date', now)).toBe(0);
  });

  it('counts whole days to an account expiry', () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    expect(daysUntil('2030-01-11T12:00:00Z', now)).toBe(10);
    expect(daysUntil('2030-01-01T23:00:00Z', now)).toBe(0);
    expect(daysUntil('2029-01-01T00:00:00Z', now)).toBe(0);
  });
});
