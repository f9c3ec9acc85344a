import { describe, expect, it } from 'vitest';
import {
  CallBudget,
  CallBudgetSpentError,
  currentCallBudget,
  runWithCallBudget,
  withCallBudget,
} from '../http/call-budget.js';
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

describe('KeyedSerialQueue under call budgets', () => {
  it('fails a job whose budget is spent while it waits, without running it, and keeps the order', async () => {
    const queue = new KeyedSerialQueue();
    let release = () => undefined as void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    // The first writer hangs (its caller has no budget); the second gives up waiting.
    const first = queue.run('group', async () => {
      ran.push('first');
      await hung;
    });
    const second = withCallBudget(20, () => queue.run('group', () => Promise.resolve(void ran.push('second'))));
    await expect(second).rejects.toThrow(CallBudgetSpentError);
    await expect(second).rejects.toThrow(/earlier call to the same device object did not finish.*call budget spent/);
    const third = queue.run('group', () => Promise.resolve(void ran.push('third')));
    release();
    await Promise.all([first, third]);
    expect(ran).toEqual(['first', 'third']);
    expect(queue.size).toBe(0);
  });

  it('fails fast, without running, a job whose budget is already spent when its turn comes', async () => {
    const queue = new KeyedSerialQueue();
    let ran = false;
    let budgetOfCall: CallBudget | undefined;
    await withCallBudget(1_000, () => Promise.resolve((budgetOfCall = currentCallBudget())));
    expect(budgetOfCall?.spent).toBe(true);
    // Run in the (closed, so spent) budget's context: as a call continuing after its budget ended.
    const late = new Promise<unknown>((resolve, reject) => {
      void withCallBudget(1_000, () => {
        currentCallBudget()?.close();
        return queue.run('group', () => Promise.resolve((ran = true)));
      }).then(resolve, reject);
    });
    await expect(late).rejects.toThrow(CallBudgetSpentError);
    expect(ran).toBe(false);
  });

  it('gives the caller the budget’s error when its running job does not finish', async () => {
    const queue = new KeyedSerialQueue();
    let release = () => undefined as void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    const call = withCallBudget(20, () => queue.run('group', () => hung));
    await expect(call).rejects.toThrow(/the device did not finish the call: no answer within 20 ms/);
    // The job still holds the key until it ends.
    expect(queue.size).toBe(1);
    release();
    await queue.idle();
    expect(queue.size).toBe(0);
  });

  it('a job waiting behind one whose device answers waits on: its budget starts again with each answer', async () => {
    const queue = new KeyedSerialQueue();
    const ran: string[] = [];
    // Both budgets on a clock the test moves: the running job's device answers every 30 ms, for
    // longer in all than the waiting job's 40 ms.
    let now = 0;
    const running = runWithCallBudget(new CallBudget(1_000, () => now), () =>
      queue.run('group', async () => {
        for (let i = 0; i < 6; i++) {
          await Promise.resolve();
          now += 30;
          currentCallBudget()?.answered();
        }
        ran.push('slow');
      }),
    );
    const waiting = runWithCallBudget(new CallBudget(40, () => now), () =>
      queue.run('group', () => Promise.resolve(void ran.push('waiting'))),
    );
    await Promise.all([running, waiting]);
    expect(ran).toEqual(['slow', 'waiting']);
  });

  it('a job waiting behind a silent one fails when its turn comes with its budget spent', async () => {
    const queue = new KeyedSerialQueue();
    const ran: string[] = [];
    let now = 0;
    const running = runWithCallBudget(new CallBudget(1_000, () => now), () =>
      queue.run('group', async () => {
        await Promise.resolve();
        now += 50;
        ran.push('silent');
      }),
    );
    const waiting = runWithCallBudget(new CallBudget(40, () => now), () =>
      queue.run('group', () => Promise.resolve(void ran.push('waiting'))),
    );
    await running;
    await expect(waiting).rejects.toThrow(CallBudgetSpentError);
    expect(ran).toEqual(['silent']);
  });
});
