import { Button, Modal, Stack, Table } from '@mantine/core';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { DialogActions } from '@/components/dialogs/DialogActions';
import { AUDIT_DETAIL_FIELDS, auditActionKey, type AuditRow } from '../audit-entry';

/** Props of {@link AuditEntryDialog}. */
export interface AuditEntryDialogProps {
  /** The entry to show; null keeps the dialog closed. */
  row: AuditRow | null;
  onClose: () => void;
}

/** Every field of one audit entry: date, action, actor and target, and the inner fields that are set. */
export function AuditEntryDialog({ row, onClose }: AuditEntryDialogProps) {
  const { t } = useTranslation();
  const fields =
    row === null
      ? []
      : [
          { key: 'date', label: t('logsScreen.detail.date'), value: dayjs(row.date).format('LL LTS') },
          {
            key: 'action',
            label: t('logsScreen.detail.action'),
            value: t(auditActionKey(row.action), { defaultValue: row.action }),
          },
          ...(['actor', 'target'] as const).flatMap((party) =>
            row[party] === '' ? [] : [{ key: party, label: t(`logsScreen.detail.${party}`), value: row[party] }],
          ),
          ...AUDIT_DETAIL_FIELDS.flatMap((field) => {
            const value = row.detail[field];
            return value === undefined || value === ''
              ? []
              : [{ key: field, label: t(`logsScreen.detail.${field}`), value }];
          }),
        ];

  return (
    <Modal
      opened={row !== null}
      onClose={onClose}
      title={t('logsScreen.detail.title')}
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack>
        <Table variant="vertical" layout="fixed" withTableBorder aria-label={t('logsScreen.detail.title')}>
          <Table.Tbody>
            {fields.map((field) => (
              <Table.Tr key={field.key}>
                <Table.Th scope="row" w="35%">
                  {field.label}
                </Table.Th>
                {/* Texts from the server (error messages, descriptions) may be long and unbroken. */}
                <Table.Td style={{ overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}>{field.value}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <DialogActions>
          <Button onClick={onClose}>{t('dialog.close')}</Button>
        </DialogActions>
      </Stack>
    </Modal>
  );
}
