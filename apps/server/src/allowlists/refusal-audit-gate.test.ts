import { describe, expect, it } from 'vitest';
import { RefusalAuditGate } from './refusal-audit-gate.js';

describe('RefusalAuditGate', () => {
  it('admits one refusal per subject per interval', () => {
    const gate = new RefusalAuditGate(60_000, 100);
    expect(gate.admit('192.0.2.1', 0)).toBe(true);
    expect(gate.admit('192.0.2.1', 1)).toBe(false);
    expect(gate.admit('192.0.2.1', 59_999)).toBe(false);
    expect(gate.admit('192.0.2.2', 59_999)).toBe(true);
    expect(gate.admit('192.0.2.1', 60_000)).toBe(true);
  });

  it('admits at most maxPerInterval refusals per interval across all subjects', () => {
    const gate = new RefusalAuditGate(60_000, 3);
    const admitted = Array.from({ length: 10 }, (_, i) => gate.admit(`192.0.2.${i}`, 1000 + i));
    expect(admitted).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(gate.admit('192.0.2.9', 61_000)).toBe(true);
  });
});
