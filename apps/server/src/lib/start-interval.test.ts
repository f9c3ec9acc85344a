import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startInterval, type IntervalHandle } from './start-interval.js';

/** A pass that stays open until the test settles it. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('startInterval', () => {
  let handle: IntervalHandle | undefined;
  const logger = { error: vi.fn() };

  beforeEach(() => {
    vi.useFakeTimers();
    logger.error.mockClear();
  });

  afterEach(async () => {
    await handle?.stop();
    handle = undefined;
    vi.useRealTimers();
  });

  it('runs a pass every interval, counting the passes from 0', async () => {
    const passes: number[] = [];
    handle = startInterval({
      name: 'test',
      intervalMs: 100,
      logger,
      run: (pass) => {
        passes.push(pass);
        return Promise.resolve();
      },
    });
    expect(passes).toEqual([]);
    await vi.advanceTimersByTimeAsync(350);
    expect(passes).toEqual([0, 1, 2]);
  });

  it('skips the ticks that find the previous pass still running', async () => {
    const open = deferred();
    let started = 0;
    let concurrent = 0;
    let mostConcurrent = 0;
    handle = startInterval({
      name: 'test',
      intervalMs: 100,
      logger,
      run: async () => {
        started += 1;
        concurrent += 1;
        mostConcurrent = Math.max(mostConcurrent, concurrent);
        await open.promise;
        concurrent -= 1;
      },
    });
    await vi.advanceTimersByTimeAsync(550);
    expect(started).toBe(1);
    open.resolve();
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    expect(mostConcurrent).toBe(1);
  });

  it('stop() waits for the pass in flight and starts no more', async () => {
    const open = deferred();
    let started = 0;
    let finished = false;
    handle = startInterval({
      name: 'test',
      intervalMs: 100,
      logger,
      run: async () => {
        started += 1;
        await open.promise;
        finished = true;
      },
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(1);
    let stopped = false;
    const stopping = handle.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(300);
    expect(stopped).toBe(false);
    open.resolve();
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(started).toBe(1);
  });

  it('logs a failed pass and runs the next tick', async () => {
    const boom = new Error('boom');
    let started = 0;
    handle = startInterval({
      name: 'test sweep',
      intervalMs: 100,
      logger,
      run: () => {
        started += 1;
        return started === 1 ? Promise.reject(boom) : Promise.resolve();
      },
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(logger.error).toHaveBeenCalledWith({ err: boom }, 'test sweep failed');
    await vi.advanceTimersByTimeAsync(100);
    expect(started).toBe(2);
    expect(logger.error).toHaveBeenCalledTimes(1);
  });

  it('leaves to the outcome log the failures it handles, and reports successes to it', async () => {
    const outage = new Error('store locked');
    const other = new Error('bug');
    const errors = [outage, other, undefined];
    const outcomes = { failed: vi.fn((error: unknown) => error === outage), succeeded: vi.fn() };
    handle = startInterval({
      name: 'test',
      intervalMs: 100,
      logger,
      outcomes,
      run: (pass) => {
        const error = errors[pass];
        return error === undefined ? Promise.resolve() : Promise.reject(error);
      },
    });
    await vi.advanceTimersByTimeAsync(300);
    expect(outcomes.failed.mock.calls).toEqual([[outage], [other]]);
    expect(logger.error.mock.calls).toEqual([[{ err: other }, 'test failed']]);
    expect(outcomes.succeeded).toHaveBeenCalledTimes(1);
  });
});
