import { describe, expect, it } from 'vitest';
import { ManualClock } from '../test-support/manual-clock.js';
import { ExpiryQueue } from './expiry-queue.js';

function setup() {
  const clock = new ManualClock();
  const expired: string[] = [];
  const queue: ExpiryQueue = new ExpiryQueue(clock, () => expired.push(...queue.takeDue(clock.monotonicMs())));
  const at = (offsetMs: number) => clock.monotonicMs() + offsetMs;
  return { clock, queue, expired, at };
}

describe('ExpiryQueue', () => {
  it('keeps one timer for many deadlines and hands out the due keys earliest first', () => {
    const { clock, queue, expired, at } = setup();
    for (let index = 0; index < 1_000; index++) queue.schedule(`k${index}`, at(10_000 + (index % 10) * 1_000));
    queue.schedule('first', at(5_000));

    expect(clock.pendingTimers).toBe(1);
    clock.advance(4_999);
    expect(expired).toEqual([]);
    clock.advance(1);
    expect(expired).toEqual(['first']);
    clock.advance(5_000);
    expect(expired).toHaveLength(101);
    clock.advance(9_000);
    expect(expired).toHaveLength(1_001);
    expect(queue.size).toBe(0);
  });

  it('moves a rescheduled key to its new deadline only', () => {
    const { clock, queue, expired, at } = setup();
    queue.schedule('a', at(1_000));
    queue.schedule('a', at(3_000));

    clock.advance(2_000);
    expect(expired).toEqual([]);
    clock.advance(1_000);
    expect(expired).toEqual(['a']);
  });

  it('forgets a cancelled key', () => {
    const { clock, queue, expired, at } = setup();
    queue.schedule('a', at(1_000));
    queue.schedule('b', at(2_000));
    queue.cancel('a');

    clock.advance(5_000);
    expect(expired).toEqual(['b']);
  });

  it('re-arms for a deadline earlier than the one the timer waits for', () => {
    const { clock, queue, expired, at } = setup();
    queue.schedule('late', at(60_000));
    queue.schedule('early', at(1_000));

    clock.advance(1_000);
    expect(expired).toEqual(['early']);
  });

  it('waits out deadlines beyond the longest setTimeout delay instead of firing at once', () => {
    const { clock, queue, expired, at } = setup();
    const thirtyDays = 30 * 24 * 3600 * 1000;
    queue.schedule('long', at(thirtyDays));

    clock.advance(2 ** 31);
    expect(expired).toEqual([]);
    clock.advance(thirtyDays - 2 ** 31);
    expect(expired).toEqual(['long']);
  });

  it('does not grow without bound when the same keys are rescheduled again and again', () => {
    const { queue, at } = setup();
    for (let round = 0; round < 200; round++) {
      for (let index = 0; index < 100; index++) queue.schedule(`k${index}`, at(1_000 + round));
    }
    expect(queue.size).toBe(100);
    expect(queue.storedDeadlines).toBeLessThanOrEqual(2 * 100 + 1024 + 1);
  });
});
