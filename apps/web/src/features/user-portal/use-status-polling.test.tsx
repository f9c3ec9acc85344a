import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GrantStatus, type AclEntry } from '@postern/protocol';
import { useStatusPolling, type StatusPollingOptions } from './use-status-polling';

type AclStatus = Pick<AclEntry, 'ACLID' | 'Status'>;

/** A status server whose answers the test changes; records when it was asked (fake ms since start). */
function fakeStatus(initial: AclStatus[]) {
  const start = Date.now();
  let acls = initial;
  const askedAt: number[] = [];
  const refetch = vi.fn(() => {
    askedAt.push(Date.now() - start);
    return Promise.resolve(acls);
  });
  return {
    refetch,
    askedAt,
    set: (next: AclStatus[]) => {
      acls = next;
    },
  };
}

function poll(options: StatusPollingOptions) {
  return renderHook((props: StatusPollingOptions) => useStatusPolling(props), { initialProps: options });
}

/** Advances the fake clock, letting each answer's promise settle before the next timer. */
async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

const pending = [{ ACLID: 'a', Status: GrantStatus.Pending }];
const granted = [{ ACLID: 'a', Status: GrantStatus.Granted }];

describe('useStatusPolling', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls the dashboard every second for up to 30 tries while an ACL is unsettled, then every 30 s', async () => {
    const server = fakeStatus(pending);
    poll({ refetch: server.refetch, acls: pending, mode: 'dashboard', enabled: true });
    await advance(30_000);
    expect(server.askedAt).toHaveLength(30);
    expect(server.askedAt.slice(0, 3)).toEqual([1_000, 2_000, 3_000]);
    await advance(29_000);
    expect(server.askedAt).toHaveLength(30);
    await advance(1_000);
    expect(server.askedAt.at(-1)).toBe(60_000);
  });

  it('slows to every 30 seconds as soon as everything has settled', async () => {
    const server = fakeStatus(pending);
    poll({ refetch: server.refetch, acls: pending, mode: 'dashboard', enabled: true });
    await advance(3_000);
    server.set(granted);
    await advance(1_000);
    expect(server.askedAt).toEqual([1_000, 2_000, 3_000, 4_000]);
    await advance(29_000);
    expect(server.askedAt).toHaveLength(4);
    await advance(1_000);
    expect(server.askedAt.at(-1)).toBe(34_000);
  });

  it('polls the older home every 30 seconds', async () => {
    const server = fakeStatus(pending);
    poll({ refetch: server.refetch, acls: pending, mode: 'home', enabled: true });
    await advance(90_000);
    expect(server.askedAt).toEqual([30_000, 60_000, 90_000]);
  });

  it('after a grant asks at once, then from 1 second with a growing back-off until it settles', async () => {
    const server = fakeStatus(granted.map((acl) => ({ ...acl, Status: GrantStatus.Created })));
    const { result } = poll({ refetch: server.refetch, acls: undefined, mode: 'home', enabled: true });
    await advance(10_000);
    server.set(pending);
    act(() => result.current.follow('a', 'grant'));
    await advance(0);
    expect(server.askedAt).toEqual([10_000]);
    await advance(1_000 + 1_500 + 2_000);
    expect(server.askedAt).toEqual([10_000, 11_000, 12_500, 14_500]);
    server.set(granted);
    await advance(2_500);
    expect(server.askedAt.at(-1)).toBe(17_000);
    // Settled: back to the regular 30 seconds.
    await advance(29_999);
    expect(server.askedAt).toHaveLength(5);
    await advance(1);
    expect(server.askedAt.at(-1)).toBe(47_000);
  });

  it('follows a revoke until it is done', async () => {
    const server = fakeStatus([{ ACLID: 'a', Status: GrantStatus.Revoking }]);
    const { result } = poll({ refetch: server.refetch, acls: granted, mode: 'home', enabled: true });
    act(() => result.current.follow('a', 'revoke'));
    await advance(2_500);
    expect(server.askedAt).toEqual([0, 1_000, 2_500]);
    server.set([{ ACLID: 'a', Status: GrantStatus.Revoked }]);
    await advance(2_000);
    expect(server.askedAt).toEqual([0, 1_000, 2_500, 4_500]);
    await advance(20_000);
    expect(server.askedAt).toHaveLength(4);
  });

  it('does nothing while disabled, and stops when unmounted', async () => {
    const server = fakeStatus(pending);
    const { rerender, unmount } = poll({ refetch: server.refetch, acls: pending, mode: 'dashboard', enabled: false });
    await advance(60_000);
    expect(server.refetch).not.toHaveBeenCalled();
    rerender({ refetch: server.refetch, acls: pending, mode: 'dashboard', enabled: true });
    await advance(2_000);
    expect(server.refetch).toHaveBeenCalledTimes(2);
    unmount();
    await advance(60_000);
    expect(server.refetch).toHaveBeenCalledTimes(2);
  });

  it('keeps polling after a failed request', async () => {
    const refetch = vi.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValue(granted);
    poll({ refetch, acls: granted, mode: 'home', enabled: true });
    await advance(60_000);
    expect(refetch).toHaveBeenCalledTimes(2);
  });
});
