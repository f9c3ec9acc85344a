import { describe, expect, it } from 'vitest';
import { KeyedSerialQueue } from './keyed-serial-queue.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describe('KeyedSerialQueue', () => {
  it('runs one job at a time per key, keys side by side, and survives a failed job', async () => {
    const queue = new KeyedSerialQueue();
    const running = new Map<string, number>();
    let most = 0;
    let together = 0;
    const log: string[] = [];
    const job = (key: string, name: string, fail = false) =>
      queue.run(key, async () => {
        running.set(key, (running.get(key) ?? 0) + 1);
        most = Math.max(most, running.get(key) ?? 0);
        together = Math.max(
          together,
          [...running.values()].reduce((a, b) => a + b, 0),
        );
        await tick();
        log.push(name);
        running.set(key, (running.get(key) ?? 1) - 1);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([job('a', 'a1', true), job('a', 'a2'), job('b', 'b1'), job('a', 'a3')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(log.filter((name) => name.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(most).toBe(1);
    expect(together).toBe(2);
    expect(queue.size).toBe(0);
  });
});
