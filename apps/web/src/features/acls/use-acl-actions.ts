import { useCallback, useState } from 'react';
import { notifications } from '@mantine/notifications';
import type { AclEntry, DiscoveredIp } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { renderError } from '../../lib/api/render-error';
import type { AclActionKind } from './acl-view';
import { useGrantMutation, useRevokeMutation } from './api';

/** Props of {@link useAclActions}. */
export interface AclActionsOptions {
  /** Starts following the ACL after the call (status refetch, then the growing back-off). */
  follow: (aclId: string, action: AclActionKind) => void;
  /** The addresses IP discovery found last, sent with a grant for CGNATOpen ACLs. */
  discoveredIps: () => DiscoveredIp[];
  /** The IPv4-only and IPv6-only discovery answers, sent with every grant (dual stack). */
  dualStackIps?: () => DiscoveredIp[];
  /** Called after a successful grant (the dashboard counts uses for its Top section). */
  onGranted?: (aclId: string) => void;
  /**
   * The page shows each refusal on the ACL it concerns ({@link AclActions.refusal}) until dismissed
   * or until the next successful call, instead of a notification that fades.
   */
  refusalsInPlace?: boolean;
}

/** A refused grant or revoke, kept for the ACL it concerns; the error is translated when shown. */
export interface AclRefusal {
  action: AclActionKind;
  error: unknown;
}

/** What the ACL buttons of a page need. */
export interface AclActions {
  grant: (acl: AclEntry) => void;
  revoke: (acl: AclEntry) => void;
  /** Whether a call for this ACL is on its way. */
  busy: (aclId: string) => boolean;
  /** The last refusal of a call for this ACL, kept until dismissed or a call succeeds. */
  refusal: (aclId: string) => AclRefusal | undefined;
  /** Forgets the refusal shown for this ACL. */
  dismiss: (aclId: string) => void;
}

/**
 * Grant Access and Revoke Access for a user page: the call, the ACL's new state in the cached status,
 * then the status poll that follows it. A refusal is kept for its ACL (shown there when the page
 * says `refusalsInPlace`, else as a notification with the server's message). Several ACLs can be
 * granted at once, each button showing its own call.
 */
export function useAclActions({
  follow,
  discoveredIps,
  dualStackIps,
  onGranted,
  refusalsInPlace = false,
}: AclActionsOptions): AclActions {
  const { t } = useTranslation();
  const { mutateAsync: grantAsync } = useGrantMutation();
  const { mutateAsync: revokeAsync } = useRevokeMutation();
  const [inFlight, setInFlight] = useState<ReadonlySet<string>>(new Set());
  const [refusals, setRefusals] = useState<ReadonlyMap<string, AclRefusal>>(new Map());

  const keepRefusal = useCallback((aclId: string, refusal: AclRefusal | null) => {
    setRefusals((current) => {
      if (refusal === null && !current.has(aclId)) return current;
      const next = new Map(current);
      if (refusal === null) next.delete(aclId);
      else next.set(aclId, refusal);
      return next;
    });
  }, []);

  const mark = useCallback((aclId: string, busy: boolean) => {
    setInFlight((current) => {
      const next = new Set(current);
      if (busy) next.add(aclId);
      else next.delete(aclId);
      return next;
    });
  }, []);

  const failed = useCallback(
    (action: AclActionKind, acl: AclEntry, error: unknown) => {
      keepRefusal(acl.ACLID, { action, error });
      if (refusalsInPlace) return;
      notifications.show({
        color: 'red',
        title: t(action === 'grant' ? 'acl.grantFailed' : 'acl.revokeFailed', { name: acl.Description }),
        message: renderError(error, t),
      });
    },
    [keepRefusal, refusalsInPlace, t],
  );

  /** One call, by promise: mutate()'s own callbacks would fire for the latest of concurrent calls only. */
  const run = useCallback(
    async (action: AclActionKind, acl: AclEntry) => {
      mark(acl.ACLID, true);
      try {
        if (action === 'grant') {
          await grantAsync({ aclId: acl.ACLID, ips: discoveredIps(), dualStackIps: dualStackIps?.() ?? [] });
          onGranted?.(acl.ACLID);
        } else {
          await revokeAsync({ aclId: acl.ACLID });
        }
        keepRefusal(acl.ACLID, null);
      } catch (error) {
        failed(action, acl, error);
      } finally {
        mark(acl.ACLID, false);
        follow(acl.ACLID, action);
      }
    },
    [discoveredIps, dualStackIps, failed, follow, grantAsync, keepRefusal, mark, onGranted, revokeAsync],
  );

  const grant = useCallback((acl: AclEntry) => void run('grant', acl), [run]);
  const revoke = useCallback((acl: AclEntry) => void run('revoke', acl), [run]);
  const busy = useCallback((aclId: string) => inFlight.has(aclId), [inFlight]);
  const refusal = useCallback((aclId: string) => refusals.get(aclId), [refusals]);
  const dismiss = useCallback((aclId: string) => keepRefusal(aclId, null), [keepRefusal]);
  return { grant, revoke, busy, refusal, dismiss };
}
