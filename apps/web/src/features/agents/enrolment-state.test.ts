import { describe, expect, it } from 'vitest';
import { agentRecord, newAgentRecord } from '@/test-support/records/agents';
import { enrolmentState, freshestAgent } from './enrolment-state';

describe('enrolmentState', () => {
  it.each([
    ['a new agent', newAgentRecord(), 'waiting'],
    ['a rotated token whose old agent is still listed online', agentRecord({ EnrolledAt: null }), 'waiting'],
    ['an enrolled, connected agent', agentRecord(), 'connected'],
    ['an enrolled agent without a connection', agentRecord({ Online: false }), 'offline'],
  ] as const)('is %s: %s', (_name, agent, state) => {
    expect(enrolmentState(agent)).toBe(state);
  });
});

describe('freshestAgent', () => {
  const opened = agentRecord({ LastModifiedAt: '2026-01-02T00:00:00.000Z', EnrolledAt: null, Token: 'tok_new' });

  it('takes the polled list’s record of the same agent once it is as new as the one opened', () => {
    const listed = { ...opened, EnrolledAt: '2026-01-02T00:01:00.000Z', Online: true };
    expect(freshestAgent(opened, [agentRecord({ ID: 'other' }), listed])).toBe(listed);
  });

  it('keeps the opened record while the list still holds an older copy (before a rotation)', () => {
    const stale = {
      ...opened,
      LastModifiedAt: '2026-01-01T00:00:00.000Z',
      Token: 'tok_old',
      EnrolledAt: '2026-01-01T00:00:00.000Z',
    };
    expect(freshestAgent(opened, [stale])).toBe(opened);
  });

  it('keeps the opened record when the list has not come or lacks the agent', () => {
    expect(freshestAgent(opened, undefined)).toBe(opened);
    expect(freshestAgent(opened, [])).toBe(opened);
  });
});
