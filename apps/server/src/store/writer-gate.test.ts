import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreBusyError } from './store-unavailable.js';
import { WriterGate } from './writer-gate.js';

/** Moves the fake clock (timers and performance.now()) on by `ms`. */
const after = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('the writer gate', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets one holder in at a time, the rest in arrival order', async () => {
    const gate = new WriterGate();
    const order: string[] = [];
    await gate.acquire(performance.now() + 1_000);
    const second = gate.acquire(performance.now() + 1_000).then(() => order.push('second'));
    const third = gate.acquire(performance.now() + 1_000).then(() => order.push('third'));
    expect(gate.waiting).toBe(2);

    gate.release();
    await second;
    gate.release();
    await third;
    expect(order).toEqual(['second', 'third']);
  });

  it('keeps a waiter past its deadline while the holder is busy with its own work', async () => {
    const gate = new WriterGate();
    await gate.acquire(performance.now());
    let entered = false;
    const waiter = gate.acquire(performance.now() + 5).then(() => (entered = true));
    await after(30);
    expect(gate.waiting).toBe(1);

    gate.release();
    await waiter;
    expect(entered).toBe(true);
  });

  it('refuses an overdue waiter as soon as the holder waits for a lock held outside', async () => {
    const gate = new WriterGate();
    await gate.acquire(performance.now());
    const overdue = gate.acquire(performance.now() + 5);
    const patient = gate.acquire(performance.now() + 60_000);
    await after(30);

    gate.waitingForOutsideLock(true);
    await expect(overdue).rejects.toThrow(StoreBusyError);
    expect(gate.waiting).toBe(1);
    gate.release();
    await expect(patient).resolves.toBeUndefined();
  });

  it('refuses a waiter at its deadline while the holder already waits for an outside lock', async () => {
    const gate = new WriterGate();
    await gate.acquire(performance.now());
    gate.waitingForOutsideLock(true);
    let refused: unknown = null;
    gate.acquire(performance.now() + 20).catch((error: unknown) => (refused = error));

    await after(19);
    expect(refused).toBeNull();
    await after(1);
    expect(refused).toBeInstanceOf(StoreBusyError);
  });
});
