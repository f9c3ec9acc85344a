import { describe, expect, it } from 'vitest';
import { CoalescingRunner } from './coalescing-runner.js';

describe('CoalescingRunner', () => {
  it('runs one job at a time and lets waiting callers share the next run', async () => {
    const runner = new CoalescingRunner();
    let runs = 0;
    let release: () => void = () => undefined;
    const job = () =>
      new Promise<number>((resolve) => {
        runs++;
        release = () => resolve(runs);
      });
    const first = runner.run(job);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runs).toBe(1);
    const second = runner.run(job);
    const third = runner.run(job);
    expect(second).toBe(third);
    release();
    expect(await first).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 0));
    release();
    expect([await second, await third]).toEqual([2, 2]);
    expect(runs).toBe(2);
  });
});
