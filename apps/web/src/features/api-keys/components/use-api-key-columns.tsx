import { useMemo } from 'react';
import { Badge, Group, Stack, Text } from '@mantine/core';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import dayjs from 'dayjs';
import type { ApiKeyRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import type { DataTableColumn } from '@/components/data-table/DataTable';
import { RelativeTime } from '@/components/RelativeTime';
import { RowAction } from '@/components/RowAction';
import { allowedFromText, scopeLabel, type ScopeNames } from '../api-key-display';
import { expiryState } from '../api-key-expiry';

/** What the row actions do. */
export interface ApiKeyRowActions {
  onEdit: (key: ApiKeyRecord) => void;
  onDelete: (key: ApiKeyRecord) => void;
  /** The key whose deletion is on its way: its delete button spins, and cannot be pressed twice. */
  deletingId: string | null;
}

/** A key's age: how long since it was created ("3 months"), the creation date as its tooltip. */
function Age({ date }: { date: string }) {
  const moment = dayjs(date);
  return (
    <time dateTime={date} title={moment.format('LLL')}>
      {moment.fromNow(true)}
    </time>
  );
}

/**
 * The spec's columns of the API keys table: Name, allows access to, age, expires, last used, allowed
 * from; then the row's actions. Names of knocs and users come from `names` (ids when unknown).
 */
export function useApiKeyColumns(names: ScopeNames, actions: ApiKeyRowActions): DataTableColumn<ApiKeyRecord>[] {
  const { t, i18n } = useTranslation();
  const { onEdit, onDelete, deletingId } = actions;

  return useMemo(() => {
    const access = (key: ApiKeyRecord) =>
      key.Scopes.map((scope) => {
        const label = scopeLabel(scope, names);
        return t(label.key, label.values);
      });

    return [
      { id: 'name', header: t('apiKeysScreen.columns.name'), accessor: (key) => key.Name, sortable: true },
      {
        id: 'access',
        header: t('apiKeysScreen.columns.allowsAccessTo'),
        accessor: (key) => access(key).join(', '),
        render: (key) => (
          <Stack gap={2}>
            {access(key).map((text, index) => (
              <Text key={index} size="sm">
                {text}
              </Text>
            ))}
          </Stack>
        ),
      },
      {
        id: 'age',
        header: t('apiKeysScreen.columns.age'),
        render: (key) => <Age date={key.CreatedAt} />,
      },
      {
        id: 'expires',
        header: t('apiKeysScreen.columns.expires'),
        // ISO instants sort in time order; a key that never expires sorts last.
        accessor: (key) => key.ExpiredAfter,
        sortable: true,
        render: (key) => {
          const state = expiryState(key.ExpiredAfter, Date.now());
          if (state === 'never' || key.ExpiredAfter === null) return t('apiKeysScreen.never');
          if (state === 'expired') {
            return (
              <Badge color="red" variant="light" title={dayjs(key.ExpiredAfter).format('LLL')}>
                {t('apiKeysScreen.expired')}
              </Badge>
            );
          }
          return <RelativeTime date={key.ExpiredAfter} />;
        },
      },
      {
        id: 'lastUsed',
        header: t('apiKeysScreen.columns.lastUsed'),
        accessor: (key) => key.LastUsedAt,
        sortable: true,
        render: (key) =>
          key.LastUsedAt === null ? t('apiKeysScreen.neverUsed') : <RelativeTime date={key.LastUsedAt} />,
      },
      {
        id: 'allowedFrom',
        header: t('apiKeysScreen.columns.allowedFrom'),
        accessor: (key) => allowedFromText(key.AllowedFrom),
        render: (key) => (
          <Stack gap={2}>
            {key.AllowedFrom.map((entry, index) => (
              <Text key={index} size="sm" ff="monospace" title={entry.Note}>
                {entry.Prefix}
              </Text>
            ))}
          </Stack>
        ),
      },
      {
        id: 'actions',
        header: t('apiKeysScreen.columns.actions'),
        render: (key) => (
          <Group gap={4} wrap="nowrap">
            <RowAction
              label={t('apiKeysScreen.rowActions.edit', { name: key.Name })}
              icon={<IconPencil size={16} aria-hidden />}
              onClick={() => onEdit(key)}
            />
            <RowAction
              label={t('apiKeysScreen.rowActions.delete', { name: key.Name })}
              icon={<IconTrash size={16} aria-hidden />}
              onClick={() => onDelete(key)}
              color="red"
              loading={key.ID === deletingId}
            />
          </Group>
        ),
      },
    ] satisfies DataTableColumn<ApiKeyRecord>[];
    // i18n.language: the texts change with the language even though `t` keeps its identity.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [t, i18n.language, names, onEdit, onDelete, deletingId]);
}
