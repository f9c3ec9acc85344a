import { Group, Modal, Stack, Title } from '@mantine/core';
import { IconEdit, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { RowActionMenu } from '@/components/RowActionMenu';
import { knocsApi } from '../api';
import { KnocSettingsSummary } from './KnocSettingsSummary';
import { KnocTestPanel } from './KnocTestPanel';
import { VerificationInstructions } from './VerificationInstructions';

/** What the detail dialog's Actions menu does. */
export interface KnocDetailActions {
  onEdit: (knoc: KnocRecord) => void;
  onDelete: (knoc: KnocRecord) => void;
}

/** Props of {@link KnocDetailDialog}. */
export interface KnocDetailDialogProps extends KnocDetailActions {
  /** The knoc to show. */
  knocId: string;
  /** The knocs already loaded: the knoc is taken from them when it is there, else fetched. */
  knocs: readonly KnocRecord[];
  onClose: () => void;
}

/** The knoc's hidden child firewall knoc (passive+), fetched for its own instructions. */
function ChildFirewall({ childId }: { childId: string }) {
  const { t } = useTranslation();
  const child = knocsApi.useItem(childId);
  return child.data === undefined ? null : (
    <Stack gap="sm">
      <Title order={3} size="h5">
        {t('knocsScreen.detail.childFirewall')}
      </Title>
      <VerificationInstructions knoc={child.data} />
    </Stack>
  );
}

function KnocDetail({ knoc, onEdit, onDelete }: { knoc: KnocRecord } & KnocDetailActions) {
  const { t } = useTranslation();
  const childId = knoc.Children[0];
  return (
    <Stack gap="md">
      <Group justify="flex-end">
        <RowActionMenu
          label={t('knocsScreen.actions.menu', { name: knoc.Name })}
          items={[
            {
              label: t('knocsScreen.actions.edit'),
              icon: <IconEdit size={16} aria-hidden />,
              onClick: () => onEdit(knoc),
            },
            {
              label: t('knocsScreen.actions.delete'),
              icon: <IconTrash size={16} aria-hidden />,
              onClick: () => onDelete(knoc),
              danger: true,
            },
          ]}
        />
      </Group>
      <KnocSettingsSummary knoc={knoc} />
      <Title order={3} size="h5">
        {t('knocsScreen.detail.verify')}
      </Title>
      <VerificationInstructions knoc={knoc} />
      {childId === undefined ? null : <ChildFirewall childId={childId} />}
      <KnocTestPanel knoc={knoc} />
    </Stack>
  );
}

/**
 * A knoc's detail dialog (row click or ?viewKnocId): its settings, how to check that grants arrive,
 * "Test this knoc", and the Actions menu with Edit and Delete.
 */
export function KnocDetailDialog({ knocId, knocs, onClose, ...actions }: KnocDetailDialogProps) {
  const { t } = useTranslation();
  const listed = knocs.find((knoc) => knoc.ID === knocId);
  const fetched = knocsApi.useItem(listed === undefined ? knocId : undefined);
  const knoc = listed ?? fetched.data;
  return (
    <Modal
      opened
      onClose={onClose}
      title={knoc?.Name ?? t('knocsScreen.detail.title')}
      size="lg"
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      {knoc === undefined ? (
        <QueryState {...fetched}>{() => null}</QueryState>
      ) : (
        <KnocDetail knoc={knoc} {...actions} />
      )}
    </Modal>
  );
}
