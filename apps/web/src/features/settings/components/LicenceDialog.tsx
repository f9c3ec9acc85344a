import { useState, type ReactNode } from 'react';
import { ActionIcon, Alert, Anchor, Button, Code, Group, Modal, Stack, Table, Text, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import type { LicenceStatus } from '@postern/protocol';
import { DialogActions } from '@/components/dialogs/DialogActions';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import { useRefreshLicenceStatus } from '../api';
import { useAdminStatus } from '@/features/status/api';
import { licenceLinks } from '@/lib/links';
import { licenceExpiry, licenceUsage, machineCount } from '../licence-summary';

/** Props of {@link LicenceDialog}. */
export interface LicenceDialogProps {
  opened: boolean;
  status: LicenceStatus;
  onClose: () => void;
}

/**
 * The licence in detail (spec §2 Settings): refresh, current users, over-limit warning, overage
 * and the limit including it, machines, the note that admins are not counted, support and licensing
 * links, the licence ID, and Close.
 */
export function LicenceDialog({ opened, status, onClose }: LicenceDialogProps) {
  const { t } = useTranslation();
  const refresh = useRefreshLicenceStatus();
  const [failure, setFailure] = useState<unknown>(null);
  const usage = licenceUsage(status);
  const machines = machineCount(status);
  const expiry = licenceExpiry(status, new Date());
  // The operator's support and licensing pages; the admin shell has the status cached already.
  const links = licenceLinks(useAdminStatus().data);

  const rows: [string, ReactNode][] = [
    ...(status.Licensee === '' ? [] : [[t('settingsScreen.licence.licensee'), status.Licensee] as [string, string]]),
    [t('settingsScreen.licence.currentUsers'), status.UserCount],
    [t('settingsScreen.licence.userLimit'), status.UserLimit],
    [
      t('settingsScreen.licence.overage'),
      t('settingsScreen.licence.percent', { value: status.UserLimitOveragePercentage }),
    ],
    [t('settingsScreen.licence.limitIncludingOverage'), usage.limitIncludingOverage],
    [
      t('settingsScreen.licence.machines'),
      machines.max === null
        ? machines.count
        : t('settingsScreen.licence.countOfMax', { count: machines.count, max: machines.max }),
    ],
    [
      t('settingsScreen.licence.expires'),
      status.Expires === null
        ? '—'
        : `${dayjs(status.Expires).format('LL')} (${
            expiry.kind === 'expires'
              ? t('settingsScreen.licence.expiresInDays', { count: expiry.days })
              : t('settingsScreen.licence.expired')
          })`,
    ],
  ];

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={t('settingsScreen.licence.dialogTitle')}
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack gap="md">
        <Group justify="flex-end">
          <Tooltip label={t('settingsScreen.licence.refresh')}>
            <ActionIcon
              variant="light"
              aria-label={t('settingsScreen.licence.refresh')}
              loading={refresh.isPending}
              onClick={() => refresh.mutate(undefined, { onError: setFailure })}
            >
              <IconRefresh size={18} aria-hidden />
            </ActionIcon>
          </Tooltip>
        </Group>
        {usage.state === 'within' ? null : (
          <Alert color={usage.state === 'grace' ? 'orange' : 'red'} variant="light" role="alert">
            {usage.state === 'grace'
              ? t('settingsScreen.licence.overLimitGrace', {
                  percent: usage.percentOverLimit,
                  remaining: usage.remainingSeats,
                })
              : t('settingsScreen.licence.overLimitDenied', { percent: usage.percentOverLimit })}
          </Alert>
        )}
        <Table variant="vertical" withTableBorder layout="fixed" aria-label={t('settingsScreen.licence.dialogTitle')}>
          <Table.Tbody>
            {rows.map(([label, value]) => (
              <Table.Tr key={label}>
                <Table.Th scope="row" w="50%">
                  {label}
                </Table.Th>
                <Table.Td>{value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Text size="sm" c="dimmed">
          {t('settingsScreen.licence.adminsNotCounted')}
        </Text>
        {(links.support !== null || links.licensing !== null) && (
          <Group gap="md">
            {links.support !== null && (
              <Anchor href={links.support} target="_blank" rel="noopener noreferrer">
                {t('settingsScreen.licence.support')}
              </Anchor>
            )}
            {links.licensing !== null && (
              <Anchor href={links.licensing} target="_blank" rel="noopener noreferrer">
                {t('settingsScreen.licence.licensingPortal')}
              </Anchor>
            )}
          </Group>
        )}
        <Stack gap={2}>
          <Text size="sm" fw={600}>
            {t('settingsScreen.licence.licenceId')}
          </Text>
          <Code style={{ overflowWrap: 'anywhere' }}>{status.ID}</Code>
        </Stack>
        <DialogActions>
          <Button onClick={onClose}>{t('dialog.close')}</Button>
        </DialogActions>
      </Stack>
      <ErrorDialog error={failure} onClose={() => setFailure(null)} />
    </Modal>
  );
}
