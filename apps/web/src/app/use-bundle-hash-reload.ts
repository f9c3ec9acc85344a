import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router';
import { fetchSystemStatus } from '../features/status/api';

const reloadPage = () => window.location.reload();

/**
 * After every navigation, asks the server which web build it serves and reloads the page when that
 * is no longer the build this page started with, so nobody runs stale code against a new server.
 * Any failure of the check is ignored: it must never get in the way.
 */
export function useBundleHashReload(reload: () => void = reloadPage): void {
  const { key } = useLocation();
  const firstHash = useRef<string | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    fetchSystemStatus({ signal: controller.signal }).then(
      ({ JsBundleHash }) => {
        if (firstHash.current === null) firstHash.current = JsBundleHash;
        else if (JsBundleHash !== firstHash.current) reload();
      },
      () => undefined,
    );
    // A newer navigation's check supersedes this one.
    return () => controller.abort();
  }, [key, reload]);
}
