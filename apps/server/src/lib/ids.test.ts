import { describe, expect, it } from 'vitest';
import { uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('is a version 7, variant 1 UUID carrying the time', () => {
    const id = uuidv7(Date.UTC(2026, 10, 22));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.UTC(2026, 10, 22));
  });

  it('sorts in creation order within one millisecond and when the clock steps back', () => {
    const at = Date.UTC(2030, 0, 1);
    const ids = [uuidv7(at), uuidv7(at), uuidv7(at), uuidv7(at - 5), uuidv7(at)];
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every id its own random bits, also across refills of the random pool', () => {
    const at = Date.UTC(2030, 0, 1);
    // 1,000 ids take four pools' worth of random bytes; the random tail never repeats.
    const tails = Array.from({ length: 1_000 }, () => uuidv7(at).slice(-12));
    expect(new Set(tails).size).toBe(tails.length);
  });
});
