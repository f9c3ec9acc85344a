import { Button, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { renderError } from '@/lib/api/render-error';
import { DialogActions } from './DialogActions';

/** Props of {@link ErrorDialog}. */
export interface ErrorDialogProps {
  /** The failure to show; null keeps the dialog closed. */
  error: unknown;
  onClose: () => void;
}

/** The spec's "Error" dialog of the list screens: the rendered failure and a Close button. */
export function ErrorDialog({ error, onClose }: ErrorDialogProps) {
  const { t } = useTranslation();
  const opened = error !== null && error !== undefined;
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('error.title')}
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack>
        <Text role="alert">{opened ? renderError(error, t) : ''}</Text>
        <DialogActions>
          <Button onClick={onClose}>{t('dialog.close')}</Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}
