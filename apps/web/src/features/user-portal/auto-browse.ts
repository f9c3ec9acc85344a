import { useEffect } from 'react';
import type { AclEntry } from '@postern/protocol';
import { browserLocation } from '../../lib/navigation/browser-location';
import { browsableUrl, isUnsettled, visibleAcls } from '../acls/acl-view';

/** Session-storage key: the address this tab already browsed to on its own (once is enough). */
export const AUTO_BROWSED_STORAGE_KEY = 'postern.autoBrowsed';

/**
 * Single-ACL auto-browse (spec §2): when exactly one visible ACL has AutoBrowseUsers and an http or
 * https URL, that URL with the ACL's Config.UriToken as the `knoctoken` query parameter; else null.
 */
export function autoBrowseTarget(acls: readonly AclEntry[]): { acl: AclEntry; url: string } | null {
  const candidates = visibleAcls(acls).filter((acl) => acl.AutoBrowseUsers && browsableUrl(acl.URL) !== null);
  const [only] = candidates;
  if (candidates.length !== 1 || only === undefined) return null;
  const url = new URL(only.URL);
  if (only.Config.UriToken !== '') url.searchParams.set('knoctoken', only.Config.UriToken);
  return { acl: only, url: url.toString() };
}

function alreadyBrowsed(url: string): boolean {
  try {
    return window.sessionStorage.getItem(AUTO_BROWSED_STORAGE_KEY) === url;
  } catch {
    return false;
  }
}

function rememberBrowsed(url: string): void {
  try {
    window.sessionStorage.setItem(AUTO_BROWSED_STORAGE_KEY, url);
  } catch {
    // Without storage a return to the dashboard browses again; that is all.
  }
}

/**
 * Browses to the single auto-browse ACL once per tab, after the grant made at sign-in has settled.
 * Coming back to the dashboard afterwards does not send the person away again.
 */
export function useAutoBrowse(acls: readonly AclEntry[] | undefined, enabled: boolean): void {
  const target = acls === undefined ? null : autoBrowseTarget(acls);
  const url = enabled && target !== null && !isUnsettled(target.acl) ? target.url : null;

  useEffect(() => {
    if (url === null || alreadyBrowsed(url)) return;
    rememberBrowsed(url);
    browserLocation.assign(url);
  }, [url]);
}
