import { Button, Code, Group, Modal, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { routePath } from '@/lib/route-paths';
import { SCRIPT_VARIABLES } from '../knoc-types';

/**
 * The Module tile's dialog: pre-packaged scripts live in the agent's scripts directory, and a
 * Script knoc runs one of them by name.
 */
export function ModuleDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('knocsScreen.module.title')}
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack gap="sm">
        <Text size="sm">{t('knocsScreen.module.directory')}</Text>
        <Text size="sm">{t('knocsScreen.module.enable')}</Text>
        <Text size="sm">{t('knocsScreen.module.useInKnoc')}</Text>
        <Text size="sm">
          {t('knocsScreen.module.variables')} <Code>{SCRIPT_VARIABLES.join(', ')}</Code>
        </Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t('dialog.close')}
          </Button>
          <Button component={Link} to={routePath('knocsNewScript')}>
            {t('knocsScreen.tiles.script.action')}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
