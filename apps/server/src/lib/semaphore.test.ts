import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

/** A task that finishes as soon as it is started (as a SQLite store's answers do), recording its start. */
const instant = (log: string[], name: string) => () => {
  log.push(name);
  return Promise.resolve(name);
};

describe('Semaphore', () => {
  it('runs at most `limit` tasks at once, the rest in arrival order', async () => {
    const semaphore = new Semaphore(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        semaphore.run(async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 5));
          order.push(index);
          running -= 1;
        }),
      ),
    );
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('hands a freed slot over at once by default', async () => {
    const semaphore = new Semaphore(1);
    const log: string[] = [];
    const tasks = ['a', 'b', 'c'].map((name) => semaphore.run(instant(log, name)));
    // A macrotask queued now runs after every task: they all ran in microtasks.
    const between = new Promise<void>((resolve) => setImmediate(() => resolve(void log.push('event loop'))));
    await Promise.all([...tasks, between]);
    expect(log).toEqual(['a', 'b', 'c', 'event loop']);
  });

  it('with yieldBetween, lets the event loop turn between waiting tasks', async () => {
    const semaphore = new Semaphore(1, { yieldBetween: true });
    const log: string[] = [];
    const tasks = ['a', 'b', 'c'].map((name) => semaphore.run(instant(log, name)));
    const between = new Promise<void>((resolve) => setImmediate(() => resolve(void log.push('event loop'))));
    await Promise.all([...tasks, between]);
    expect(log).toEqual(['a', 'event loop', 'b', 'c']);
    expect(semaphore.waiting).toBe(0);
  });
});
