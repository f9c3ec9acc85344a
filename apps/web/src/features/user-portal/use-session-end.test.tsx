import { renderHook, act } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SESSION_END_RECHECK_MS, useSessionEnd } from './use-session-end';

async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

describe('useSessionEnd', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('forces a status refetch when the countdown reaches zero, not before', async () => {
    const refetch = vi.fn(() => Promise.resolve());
    renderHook(() => useSessionEnd(new Date(Date.now() + 90_000).toISOString(), refetch));
    await advance(89_999);
    expect(refetch).not.toHaveBeenCalled();
    await advance(1);
    expect(refetch).toHaveBeenCalledTimes(1);
  });

  it('asks again every few seconds while the server still calls the session alive', async () => {
    const refetch = vi.fn(() => Promise.resolve());
    renderHook(() => useSessionEnd(new Date(Date.now() + 1_000).toISOString(), refetch));
    await advance(1_000 + 2 * SESSION_END_RECHECK_MS);
    expect(refetch).toHaveBeenCalledTimes(3);
  });

  it('counts down to a later end when the answer carries one', async () => {
    const refetch = vi.fn(() => Promise.resolve());
    const { rerender } = renderHook(({ ends }) => useSessionEnd(ends, refetch), {
      initialProps: { ends: new Date(Date.now() + 1_000).toISOString() },
    });
    await advance(1_000);
    expect(refetch).toHaveBeenCalledTimes(1);
    rerender({ ends: new Date(Date.now() + 60_000).toISOString() });
    await advance(59_999);
    expect(refetch).toHaveBeenCalledTimes(1);
    await advance(1);
    expect(refetch).toHaveBeenCalledTimes(2);
  });

  it('refetches at once for a session that has already ended, and waits for nothing without one', async () => {
    const refetch = vi.fn(() => Promise.resolve());
    renderHook(() => useSessionEnd(new Date(Date.now() - 1_000).toISOString(), refetch));
    await advance(0);
    expect(refetch).toHaveBeenCalledTimes(1);
    const idle = vi.fn(() => Promise.resolve());
    renderHook(() => useSessionEnd(undefined, idle));
    await advance(60_000);
    expect(idle).not.toHaveBeenCalled();
  });

  it('waits in steps for a session longer than a timer can wait', async () => {
    const refetch = vi.fn(() => Promise.resolve());
    renderHook(() => useSessionEnd(new Date(Date.now() + 30 * 86_400_000).toISOString(), refetch));
    await advance(29 * 86_400_000);
    expect(refetch).not.toHaveBeenCalled();
    await advance(86_400_000);
    expect(refetch).toHaveBeenCalledTimes(1);
  });
});
