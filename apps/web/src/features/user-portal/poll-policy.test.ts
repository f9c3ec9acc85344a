import { describe, expect, it } from 'vitest';
import { GrantStatus, type AclEntry } from '@postern/protocol';
import { actionPollDelay, afterPoll, INITIAL_POLL_STATE, nextPoll, watchAcl, type PollState } from './poll-policy';

type AclStatus = Pick<AclEntry, 'ACLID' | 'Status'>;

const pending: AclStatus[] = [{ ACLID: 'a', Status: GrantStatus.Pending }];
const settled: AclStatus[] = [{ ACLID: 'a', Status: GrantStatus.Granted }];

/** Runs `count` polls against unchanging ACLs and answers the delays chosen. */
function delays(acls: AclStatus[], mode: 'dashboard' | 'home', count: number, state: PollState = INITIAL_POLL_STATE) {
  const chosen: number[] = [];
  let current = state;
  for (let index = 0; index < count; index += 1) {
    const next = nextPoll(current, acls, mode);
    chosen.push(next.delay);
    current = afterPoll(next.state, acls);
  }
  return { chosen, state: current };
}

describe('the dashboard poll', () => {
  it('asks every second for 30 tries while an ACL is unsettled, then every 30 seconds', () => {
    const { chosen } = delays(pending, 'dashboard', 33);
    expect(chosen.slice(0, 30)).toEqual(Array(30).fill(1_000));
    expect(chosen.slice(30)).toEqual([30_000, 30_000, 30_000]);
  });

  it('asks every 30 seconds while everything is settled', () => {
    expect(delays(settled, 'dashboard', 3).chosen).toEqual([30_000, 30_000, 30_000]);
  });

  it('starts counting its 30 fast tries again once everything settled in between', () => {
    const { state } = delays(pending, 'dashboard', 31);
    const calm = delays(settled, 'dashboard', 1, state).state;
    expect(calm.fastTries).toBe(0);
    expect(nextPoll(calm, pending, 'dashboard').delay).toBe(1_000);
  });
});

describe('the older home poll', () => {
  it('asks every 30 seconds, even while an ACL is unsettled', () => {
    expect(delays(pending, 'home', 3).chosen).toEqual([30_000, 30_000, 30_000]);
  });
});

describe('the poll after a grant or revoke', () => {
  it('starts at 1 second and grows by a step each time', () => {
    expect([0, 1, 2, 3].map(actionPollDelay)).toEqual([1_000, 1_500, 2_000, 2_500]);
    const watching = watchAcl(INITIAL_POLL_STATE, 'a', 'grant');
    const { chosen } = delays([{ ACLID: 'a', Status: GrantStatus.Pending }], 'home', 4, watching);
    expect(chosen).toEqual([1_000, 1_500, 2_000, 2_500]);
  });

  it.each([
    ['grant', GrantStatus.GrantError],
    ['grant', GrantStatus.AgentOffline],
    ['grant', GrantStatus.Created],
    ['grant', GrantStatus.Published],
    ['grant', GrantStatus.Granted],
    ['revoke', GrantStatus.Revoked],
  ] as const)('stops following a %s once the status is %i', (action, status) => {
    const watching = watchAcl(INITIAL_POLL_STATE, 'a', action);
    const after = afterPoll(nextPoll(watching, undefined, 'home').state, [{ ACLID: 'a', Status: status }]);
    expect(after.watched.size).toBe(0);
    expect(nextPoll(after, [{ ACLID: 'a', Status: status }], 'home').delay).toBe(30_000);
  });

  it('keeps following while the status is on its way, and through a failed refetch', () => {
    let state = watchAcl(INITIAL_POLL_STATE, 'a', 'revoke');
    state = afterPoll(nextPoll(state, undefined, 'home').state, [{ ACLID: 'a', Status: GrantStatus.Revoking }]);
    state = afterPoll(nextPoll(state, undefined, 'home').state, undefined);
    expect(state.watched.get('a')).toEqual({ action: 'revoke', attempt: 2 });
    expect(nextPoll(state, undefined, 'home').delay).toBe(2_000);
  });

  it('hands over to the regular poll once its back-off reaches 30 seconds', () => {
    const { chosen, state } = delays(
      [{ ACLID: 'a', Status: GrantStatus.Revoking }],
      'home',
      60,
      watchAcl(INITIAL_POLL_STATE, 'a', 'revoke'),
    );
    expect(Math.max(...chosen)).toBe(30_000);
    expect(chosen.filter((delay) => delay < 30_000).length).toBeGreaterThan(50);
    expect(state.watched.size).toBe(0);
  });

  it('stops following an ACL that left the list', () => {
    const state = afterPoll(watchAcl(INITIAL_POLL_STATE, 'a', 'grant'), [{ ACLID: 'b', Status: GrantStatus.Pending }]);
    expect(state.watched.size).toBe(0);
  });
});
