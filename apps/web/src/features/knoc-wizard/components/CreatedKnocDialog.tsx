import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { CopyableValue } from '@/features/agents/components/CopyableValue';

/** What the wizard's create answered that the admin must copy now (KnocWizardCreateResponse). */
export interface CreatedKnocSecrets {
  ApiKey: { Name: string; PlaintextKey: string } | null;
  AllowlistURL: string | null;
}

/** Whether the create answer carries something to show: then the wizard stays on it (spec §2). */
export function hasCreatedSecrets(created: CreatedKnocSecrets): boolean {
  return created.ApiKey !== null || created.AllowlistURL !== null;
}

/**
 * The created key in plain text (shown this once) and the allowlist's address, each with a copy
 * button, and Close. Closing only by the button or Escape: a stray click outside must not lose a
 * key that is never shown again.
 */
export function CreatedKnocDialog({ created, onClose }: { created: CreatedKnocSecrets | null; onClose: () => void }) {
  const { t } = useTranslation();
  const apiKey = created?.ApiKey ?? null;
  // Without a configured public URL the server answers a path: the firewall needs the whole address.
  const path = created?.AllowlistURL ?? null;
  const url = path === null ? null : new URL(path, window.location.origin).href;
  return (
    <Modal
      opened={created !== null}
      onClose={onClose}
      title={t('knocWizardApplication.created.title')}
      centered
      size="lg"
      closeOnClickOutside={false}
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack>
        <Text size="sm">{t('knocWizardApplication.created.description')}</Text>
        {apiKey === null ? null : (
          <CopyableValue
            label={t('knocWizardApplication.created.apiKeyName', { name: apiKey.Name })}
            value={apiKey.PlaintextKey}
            copyLabel={t('knocWizardApplication.created.copy', { what: t('knocWizardApplication.created.apiKey') })}
          />
        )}
        {url === null ? null : (
          <CopyableValue
            label={t('knocWizardApplication.created.allowlistUrl')}
            value={url}
            copyLabel={t('knocWizardApplication.created.copy', {
              what: t('knocWizardApplication.created.allowlistUrl'),
            })}
          />
        )}
        {apiKey !== null && url !== null ? (
          <Text size="sm" c="dimmed">
            {t('knocWizardApplication.created.basicAuth')}
          </Text>
        ) : null}
        <Group justify="flex-end">
          <Button onClick={onClose}>{t('dialog.close')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
