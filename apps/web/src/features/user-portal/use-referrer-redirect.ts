import { useEffect } from 'react';
import type { AclEntry } from '@postern/protocol';
import { browserLocation } from '../../lib/navigation/browser-location';
import { isUnsettled } from '../acls/acl-view';
import { aclForReferrer, dropReferrer, heldReferrer } from '../auth/referrer';

/**
 * Follows the referrer the login page held (see auth/referrer.ts) once the user's ACLs are known:
 * to it when its base matches one of their ACLs, after any grant made at sign-in on that ACL has
 * settled; otherwise it is forgotten and the person stays here. Answers whether the page is leaving.
 */
export function useReferrerRedirect(acls: readonly AclEntry[] | undefined): boolean {
  const referrer = acls === undefined ? null : heldReferrer();
  const acl = referrer === null || acls === undefined ? undefined : aclForReferrer(referrer, acls);
  const leaving = referrer !== null && acl !== undefined;
  const ready = leaving && !isUnsettled(acl);

  useEffect(() => {
    if (referrer === null) return;
    if (acl === undefined) {
      dropReferrer();
      return;
    }
    if (!ready) return;
    dropReferrer();
    browserLocation.assign(referrer);
  }, [referrer, acl, ready]);

  return leaving;
}
