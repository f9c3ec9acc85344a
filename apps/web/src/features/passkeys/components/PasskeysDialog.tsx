import { Modal } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Area } from '../../../lib/area';
import { PasskeysPanel } from './PasskeysPanel';

/** Props of {@link PasskeysDialog}. */
export interface PasskeysDialogProps {
  realm: Area;
  opened: boolean;
  onClose: () => void;
}

/** The signed-in account's own passkeys: the list, and adding one (up to the account's limit). */
export function PasskeysDialog({ realm, opened, onClose }: PasskeysDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('passkey.manage.title')}
      centered
      size="lg"
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      {/* Mounted only while open: the list is asked for when someone looks at it. */}
      {opened ? <PasskeysPanel realm={realm} /> : null}
    </Modal>
  );
}
