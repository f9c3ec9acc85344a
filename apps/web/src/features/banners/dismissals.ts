import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { BANNER_PRIORITY, type BannerKind } from './banner-rules';

/**
 * Banner dismissals (spec: "Dismissal lasts for the session"). They live in session storage, one key
 * per banner kind, so closing the tab brings every banner back while moving between admin pages or
 * reloading does not. A dismissal hides a kind, not one message: a new server release after a
 * dismissed update notice waits for the next session, which is what "for the session" promises.
 */
export const DISMISSAL_KEY_PREFIX = 'postern.banner.dismissed.';

const keyOf = (kind: BannerKind) => `${DISMISSAL_KEY_PREFIX}${kind}`;

const listeners = new Set<() => void>();
/** Dismissals made while session storage refused writes (private modes, disabled storage). */
const unstored = new Set<BannerKind>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

function isDismissed(kind: BannerKind): boolean {
  if (unstored.has(kind)) return true;
  try {
    return window.sessionStorage.getItem(keyOf(kind)) !== null;
  } catch {
    return false;
  }
}

/**
 * The dismissed kinds as one string: useSyncExternalStore compares snapshots with Object.is, so a
 * fresh Set on every read would re-render forever.
 */
function snapshot(): string {
  return BANNER_PRIORITY.filter(isDismissed).join(' ');
}

/** Hides banners of `kind` until the browser session ends. */
export function dismissBanner(kind: BannerKind): void {
  try {
    window.sessionStorage.setItem(keyOf(kind), '1');
  } catch {
    // Storage can be disabled; the banner then hides only until the next page load.
    unstored.add(kind);
  }
  for (const listener of [...listeners]) listener();
}

/** The kinds dismissed this session, and a function to dismiss one; re-renders when either changes. */
export function useBannerDismissals(): { dismissed: ReadonlySet<BannerKind>; dismiss: (kind: BannerKind) => void } {
  const current = useSyncExternalStore(subscribe, snapshot);
  const dismissed = useMemo(() => new Set(current === '' ? [] : (current.split(' ') as BannerKind[])), [current]);
  const dismiss = useCallback((kind: BannerKind) => dismissBanner(kind), []);
  return { dismissed, dismiss };
}
