import { Button, Code, CopyButton, Modal, Stack, Text } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPY_CONFIRMATION_MS } from '@postern/protocol';
import { DialogActions } from './DialogActions';

/** Props of {@link SecretRevealDialog}. */
export interface SecretRevealDialogProps {
  /** The secret (an API key, an allow-list URL); null keeps the dialog closed. */
  secret: string | null;
  title: string;
  /** What the secret is for; defaults to "This is shown only once. Copy it now." */
  description?: string;
  onClose: () => void;
}

/** Shows a one-time secret with a copy button that confirms the copy for 750 ms. */
export function SecretRevealDialog({ secret, title, description, onClose }: SecretRevealDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={secret !== null}
      onClose={onClose}
      title={title}
      centered
      closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack>
        <Text size="sm">{description ?? t('dialog.shownOnce')}</Text>
        <Code block style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>
          {secret ?? ''}
        </Code>
        <DialogActions>
          <CopyButton value={secret ?? ''} timeout={COPY_CONFIRMATION_MS}>
            {({ copied, copy }) => (
              <Button
                variant={copied ? 'light' : 'default'}
                color={copied ? 'teal' : undefined}
                leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
                onClick={copy}
              >
                {copied ? t('dialog.copied') : t('dialog.copy')}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>{t('dialog.close')}</Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}
