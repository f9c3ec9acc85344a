import { useCallback, useEffect, useRef } from 'react';
import type { AclEntry } from '@postern/protocol';
import type { AclActionKind } from '../acls/acl-view';
import { afterPoll, INITIAL_POLL_STATE, nextPoll, watchAcl, type PollMode, type PollState } from './poll-policy';

type AclStatus = Pick<AclEntry, 'ACLID' | 'Status'>;

/** Props of {@link useStatusPolling}. */
export interface StatusPollingOptions {
  /** Asks for the status now; resolves to its ACLs, or to undefined when the call failed. */
  refetch: () => Promise<readonly AclStatus[] | undefined>;
  /** The ACLs as the page shows them now (the first schedule is decided on these). */
  acls: readonly AclStatus[] | undefined;
  mode: PollMode;
  /** False while there is nothing to poll for (no session, no first answer yet). */
  enabled: boolean;
}

/** What a page does with the poller. */
export interface StatusPolling {
  /** After a grant or revoke of `aclId`: asks at once, then follows the ACL with a growing back-off. */
  follow: (aclId: string, action: AclActionKind) => void;
}

/**
 * Runs the status poll of a user page by the rules of poll-policy.ts: one timer at a time, each wait
 * decided after the previous answer. A request started by {@link StatusPolling.follow} supersedes a
 * scheduled or running one, so two loops never run side by side.
 */
export function useStatusPolling({ refetch, acls, mode, enabled }: StatusPollingOptions): StatusPolling {
  const state = useRef<PollState>(INITIAL_POLL_STATE);
  const latest = useRef(acls);
  const refetchRef = useRef(refetch);
  const runNow = useRef<(() => void) | null>(null);

  useEffect(() => {
    latest.current = acls;
    refetchRef.current = refetch;
  });

  useEffect(() => {
    if (!enabled) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let generation = 0;
    let stopped = false;

    const schedule = () => {
      const next = nextPoll(state.current, latest.current, mode);
      state.current = next.state;
      timer = setTimeout(() => void run(), next.delay);
    };

    const run = async () => {
      clearTimeout(timer);
      generation += 1;
      const mine = generation;
      const answered = await refetchRef.current().catch(() => undefined);
      // Unmounted, or a newer request took over: that one schedules what follows.
      if (stopped || mine !== generation) return;
      if (answered !== undefined) latest.current = answered;
      state.current = afterPoll(state.current, answered);
      schedule();
    };

    runNow.current = () => void run();
    schedule();
    return () => {
      stopped = true;
      runNow.current = null;
      clearTimeout(timer);
    };
  }, [enabled, mode]);

  const follow = useCallback((aclId: string, action: AclActionKind) => {
    state.current = watchAcl(state.current, aclId, action);
    runNow.current?.();
  }, []);

  return { follow };
}
