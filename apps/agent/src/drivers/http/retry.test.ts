import { describe, expect, it } from 'vitest';
import { CallBudget } from './call-budget.js';
import { backoffDelay, parseRetryAfter, withRetry, type AttemptResult, type RetryPolicy } from './retry.js';

function policy(delays: number[], overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return {
    maxAttempts: 4,
    baseMs: 100,
    capMs: 300,
    maxRetryAfterMs: 1000,
    random: () => 1,
    sleep: (ms) => (delays.push(ms), Promise.resolve()),
    ...overrides,
  };
}

/** An attempt function that plays back `results` in order. */
function script<R>(results: AttemptResult<R>[]) {
  let calls = 0;
  return {
    attempt: () => Promise.resolve(results[Math.min(calls++, results.length - 1)] as AttemptResult<R>),
    calls: () => calls,
  };
}

const answer = (status: number, retryAfter?: string): AttemptResult<number> => ({
  kind: 'answer',
  value: status,
  status,
  retryAfter,
});

describe('retry', () => {
  it('backs off exponentially with full jitter up to the cap', () => {
    expect([0, 1, 2, 3].map((n) => backoffDelay({ baseMs: 100, capMs: 300, random: () => 1 }, n))).toEqual([
      100, 200, 300, 300,
    ]);
    expect(backoffDelay({ baseMs: 100, capMs: 300, random: () => 0.25 }, 1)).toBe(50);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:10 GMT', Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(parseRetryAfter('soon')).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it('retries only 429/502/503/504, and stops after maxAttempts', async () => {
    const delays: number[] = [];
    const flaky = script([answer(502), answer(504, '0'), answer(200)]);
    expect(await withRetry(flaky.attempt, true, policy(delays))).toBe(200);
    expect(delays).toEqual([100, 0]);
    const down = script([answer(503)]);
    expect(await withRetry(down.attempt, true, policy([]))).toBe(503);
    expect(down.calls()).toBe(4);
    const bad = script([answer(500)]);
    expect(await withRetry(bad.attempt, true, policy([]))).toBe(500);
    expect(bad.calls()).toBe(1);
  });

  it('never repeats a non-idempotent call once sent, but repeats one that never left', async () => {
    const error = new Error('reset');
    const sent = script<number>([{ kind: 'failure', error, sent: true, retryable: true }]);
    await expect(withRetry(sent.attempt, false, policy([]))).rejects.toBe(error);
    expect(sent.calls()).toBe(1);
    const throttled = script([answer(429)]);
    expect(await withRetry(throttled.attempt, false, policy([]))).toBe(429);
    expect(throttled.calls()).toBe(1);
    const refused = script<number>([{ kind: 'failure', error, sent: false, retryable: true }, answer(201)]);
    expect(await withRetry(refused.attempt, false, policy([]))).toBe(201);
    const fatal = script<number>([{ kind: 'failure', error, sent: false, retryable: false }]);
    await expect(withRetry(fatal.attempt, true, policy([]))).rejects.toBe(error);
    expect(fatal.calls()).toBe(1);
  });
});

describe('withRetry under a call budget', () => {
  it('never sleeps past the budget: the last answer stands when the next wait would spend it', async () => {
    const delays: number[] = [];
    const { attempt, calls } = script([answer(503, '5'), answer(200)]);
    const budget = new CallBudget(1_000);
    expect(await withRetry(attempt, true, policy(delays, { maxRetryAfterMs: 60_000 }), undefined, { budget })).toBe(
      503,
    );
    expect(calls()).toBe(1);
    expect(delays).toEqual([]);
  });

  it('stops on a spent budget with the error the caller makes of it', async () => {
    const budget = new CallBudget(1_000);
    budget.close();
    const timeout: AttemptResult<number> = {
      kind: 'failure',
      error: new Error('try timed out'),
      sent: true,
      retryable: true,
    };
    const { attempt, calls } = script([timeout]);
    await expect(
      withRetry(attempt, true, policy([]), undefined, {
        budget,
        spent: (spentBudget) => new Error(spentBudget.spentMessage('vendor')),
      }),
    ).rejects.toThrow('vendor: no answer within 1 s (call budget spent)');
    expect(calls()).toBe(1);
  });

  it('retries as usual while the budget covers the wait', async () => {
    const delays: number[] = [];
    const { attempt, calls } = script([answer(503), answer(200)]);
    expect(await withRetry(attempt, true, policy(delays), undefined, { budget: new CallBudget(60_000) })).toBe(200);
    expect(calls()).toBe(2);
    expect(delays).toEqual([100]);
  });
});
