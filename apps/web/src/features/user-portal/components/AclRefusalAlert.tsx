import { Alert } from '@mantine/core';
import { IconAlertCircle } from '@tabler/icons-react';
import type { AclEntry } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import type { AclActions } from '../../acls/use-acl-actions';
import { renderError } from '../../../lib/api/render-error';

/** Props of {@link AclRefusalAlert}. */
export interface AclRefusalAlertProps {
  acl: AclEntry;
  actions: Pick<AclActions, 'refusal' | 'dismiss'>;
}

/**
 * Why the last grant (or revoke) of this ACL was refused, kept on its card or row until the person
 * dismisses it or a call succeeds: a notification fades before it is read, and the button alone
 * would say "Grant Access" again as if nothing had happened. Translated when shown, so a language
 * change translates it too.
 */
export function AclRefusalAlert({ acl, actions }: AclRefusalAlertProps) {
  const { t } = useTranslation();
  const refusal = actions.refusal(acl.ACLID);
  if (refusal === undefined) return null;
  return (
    <Alert
      color="red"
      variant="light"
      role="alert"
      icon={<IconAlertCircle aria-hidden />}
      title={t(refusal.action === 'grant' ? 'acl.grantFailed' : 'acl.revokeFailed', { name: acl.Description })}
      withCloseButton
      closeButtonLabel={t('acl.dismissRefusal', { name: acl.Description })}
      onClose={() => actions.dismiss(acl.ACLID)}
      p="xs"
    >
      {renderError(refusal.error, t)}
    </Alert>
  );
}
