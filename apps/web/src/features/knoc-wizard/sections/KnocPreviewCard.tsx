import { Alert, Box, Card, Group, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconInfoCircle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { AclActionButton } from '@/features/acls/components/AclActionButton';
import { AclIcon } from '@/features/acls/components/AclIcon';
import type { KnocOptionsValues } from './knoc-options';
import { previewEntry } from './review';

const ignore = () => undefined;

/**
 * How users will see the knoc (spec §2): the portal's card pieces with status 4, the disabled
 * variant when an IP restriction is set, a note when it is hidden from users and a warning when it
 * opens its address on its own.
 */
export function KnocPreviewCard({ options }: { options: KnocOptionsValues }) {
  const { t } = useTranslation();
  const entry = previewEntry(options);
  return (
    <Stack gap="xs">
      <Card
        withBorder
        radius="md"
        padding="md"
        maw={360}
        aria-label={t('knocWizard.review.preview')}
        component="section"
      >
        {/* The button never shrinks (its label would be cut, as German "Zugriff gewähren" was): a long
            name gives way first, and the button moves below the name when both cannot share a row. */}
        <Group justify="space-between" align="center" gap="sm">
          <Group gap="sm" wrap="nowrap" miw={0}>
            <AclIcon name={entry.Icon} />
            <Text fw={600} truncate="end">
              {entry.Description}
            </Text>
          </Group>
          <Box ml="auto" style={{ flexShrink: 0 }}>
            <AclActionButton acl={entry} busy={false} onGrant={ignore} onRevoke={ignore} />
          </Box>
        </Group>
      </Card>
      {options.HideFromUsers ? (
        <Alert color="blue" icon={<IconInfoCircle size={18} aria-hidden />}>
          {t('knocWizard.review.hiddenNote')}
        </Alert>
      ) : null}
      {options.AutoBrowseUsers ? (
        <Alert color="yellow" icon={<IconAlertTriangle size={18} aria-hidden />}>
          {t('knocWizard.review.autoBrowseWarning')}
        </Alert>
      ) : null}
    </Stack>
  );
}
