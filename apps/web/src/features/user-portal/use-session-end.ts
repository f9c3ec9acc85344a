import { useEffect, useRef } from 'react';

/** While the server still calls the session alive after the countdown ran out, ask again this often. */
export const SESSION_END_RECHECK_MS = 5_000;

/** setTimeout cannot wait longer than this (about 24.8 days); longer waits are made in steps. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * When the session countdown reaches zero, forces a status refetch (spec §4). The server is the judge
 * of the session's end: its 401 err.invalidSession sends the person to Login through the app's
 * invalid-session redirect. While it still answers (clocks differ a little), the refetch is repeated
 * every few seconds; a later Ends in its answer starts a new countdown.
 */
export function useSessionEnd(ends: string | undefined, refetch: () => Promise<unknown>): void {
  const refetchRef = useRef(refetch);
  useEffect(() => {
    refetchRef.current = refetch;
  });

  useEffect(() => {
    if (ends === undefined) return undefined;
    const endsAt = Date.parse(ends);
    if (Number.isNaN(endsAt)) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const recheck = () => {
      void refetchRef.current().catch(() => undefined);
      timer = setTimeout(recheck, SESSION_END_RECHECK_MS);
    };
    const wait = () => {
      const left = endsAt - Date.now();
      if (left <= 0) recheck();
      else timer = setTimeout(wait, Math.min(left, MAX_TIMEOUT_MS));
    };
    wait();
    return () => clearTimeout(timer);
  }, [ends]);
}
