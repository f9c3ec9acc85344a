import { describe, expect, it } from 'vitest';
import { CallBudget, currentCallBudget, withCallBudget } from './call-budget.js';

/** A budget on a clock the test moves. */
function budgetAt(ms: number) {
  let now = 0;
  const budget = new CallBudget(ms, () => now);
  return { budget, move: (by: number) => (now += by) };
}

describe('CallBudget', () => {
  it('counts down, and every answer starts it again (it bounds silence, not work)', () => {
    const { budget, move } = budgetAt(1_000);
    move(600);
    expect(budget.remainingMs()).toBe(400);
    budget.answered();
    expect(budget.remainingMs()).toBe(1_000);
    move(1_000);
    expect(budget.spent).toBe(true);
    budget.answered();
    expect(budget.spent).toBe(true);
  });

  it('tells its listeners when it is spent, and counts as spent once closed', async () => {
    const budget = new CallBudget(60_000);
    const told: string[] = [];
    budget.onSpent(() => told.push('a'));
    const cancelled = budget.onSpent(() => told.push('b'));
    cancelled();
    budget.close();
    expect(told).toEqual(['a']);
    expect(budget.spent).toBe(true);
    // A listener added to a spent budget hears of it at once (asynchronously).
    await new Promise<void>((resolve) => budget.onSpent(resolve));
  });

  it('fires its spent listeners when the time runs out', async () => {
    const budget = new CallBudget(5);
    await new Promise<void>((resolve) => budget.onSpent(resolve));
    expect(budget.spent).toBe(true);
  });

  it('passes answers on to whoever follows it', () => {
    const { budget } = budgetAt(1_000);
    let heard = 0;
    const stop = budget.onAnswer(() => heard++);
    budget.answered();
    stop();
    budget.answered();
    expect(heard).toBe(1);
  });

  it('names the call a spent budget ended', () => {
    expect(new CallBudget(10_000).spentMessage('fortios GET /x')).toBe(
      'fortios GET /x: no answer within 10 s (call budget spent)',
    );
    expect(new CallBudget(250).spentMessage('aws')).toBe('aws: no answer within 250 ms (call budget spent)');
  });

  it('reaches every await of the call it was set for, and only that call', async () => {
    expect(currentCallBudget()).toBeUndefined();
    const seen = await withCallBudget(5_000, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentCallBudget();
    });
    expect(seen?.ms).toBe(5_000);
    // Closed when the call returned: whatever of it still runs is given up.
    expect(seen?.spent).toBe(true);
    expect(currentCallBudget()).toBeUndefined();
  });
});
