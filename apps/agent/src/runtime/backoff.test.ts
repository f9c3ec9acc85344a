import { describe, expect, it } from 'vitest';
import { Backoff } from './backoff.js';

describe('Backoff', () => {
  it('doubles the ceiling from 0.5 s up to the 60 s cap', () => {
    const backoff = new Backoff(undefined, () => 1);

    const delays = Array.from({ length: 10 }, () => backoff.next());

    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
  });

  it('draws each wait uniformly below the ceiling (full jitter)', () => {
    const draws = [0, 0.25, 0.5];
    const backoff = new Backoff({ baseMs: 1_000, capMs: 60_000 }, () => draws.shift() ?? 0);

    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([0, 500, 2_000]);
  });

  it('starts again from the base after reset', () => {
    const backoff = new Backoff(undefined, () => 1);
    for (let index = 0; index < 5; index++) backoff.next();

    backoff.reset();

    expect(backoff.next()).toBe(500);
  });

  it('waits 4 to 8 times the base after the server said it is stopping, and grows from there', () => {
    const low = new Backoff(undefined, () => 0);
    const high = new Backoff(undefined, () => 1);

    expect([low.afterServerStopping(), high.afterServerStopping()]).toEqual([2_000, 4_000]);
    expect(high.next()).toBe(4_000);
    expect(new Backoff({ baseMs: 500, capMs: 1_000 }, () => 1).afterServerStopping()).toBe(1_000);
  });

  it('waits between half the cap and the cap after a refusal, and keeps later waits up to the cap', () => {
    const low = new Backoff(undefined, () => 0);
    const high = new Backoff(undefined, () => 1);

    expect([low.atCap(), high.atCap()]).toEqual([30_000, 60_000]);
    expect(high.next()).toBe(60_000);
  });
});
