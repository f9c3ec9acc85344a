import { describe, expect, it } from 'vitest';
import { RefreshCoalescer } from './refresh-coalescer.js';

function gate() {
  let open: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('RefreshCoalescer', () => {
  it('runs one refresh at a time; callers arriving meanwhile share the one next refresh', async () => {
    const coalescer = new RefreshCoalescer();
    const gates = [gate(), gate()];
    let started = 0;
    const refresh = () => gates[started++]?.promise ?? Promise.resolve();
    const first = coalescer.run('edl', refresh);
    const joined = [coalescer.run('edl', refresh), coalescer.run('edl', refresh), coalescer.run('edl', refresh)];
    expect(started).toBe(1);
    expect(joined[0]).toBe(joined[2]);
    gates[0]?.open();
    await first;
    await Promise.resolve();
    expect(started).toBe(2);
    gates[1]?.open();
    await Promise.all(joined);
    expect(started).toBe(2);
    // Idle again: the next caller starts its own refresh at once.
    await coalescer.run('edl', refresh);
    expect(started).toBe(3);
  });

  it('a failed refresh fails its callers only; the next one still runs; keys are independent', async () => {
    const coalescer = new RefreshCoalescer();
    const blocker = gate();
    let calls = 0;
    const failing = coalescer.run('a', async () => {
      calls++;
      await blocker.promise;
      throw new Error('refused');
    });
    const next = coalescer.run('a', () => (calls++, Promise.resolve()));
    const other = coalescer.run('b', () => (calls++, Promise.resolve()));
    await other;
    blocker.open();
    await expect(failing).rejects.toThrow('refused');
    await expect(next).resolves.toBeUndefined();
    expect(calls).toBe(3);
  });
});
