import { useMemo } from 'react';
import { Button, Group, Select, TextInput } from '@mantine/core';
import { IconFilterOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { ALL_AUDIT_ACTIONS, AUDIT_FILTER_TEXT_MAX } from '@postern/protocol';
import { auditActionKey } from '../audit-entry';
import { auditFilterProblem, isFiltered, NO_AUDIT_FILTER, type AuditFilterValues } from '../audit-filter';

/** Props of {@link AuditFilters}. */
export interface AuditFiltersProps {
  value: AuditFilterValues;
  onChange: (value: AuditFilterValues) => void;
}

/**
 * The Logs screen's filters, asked of the server (GET /api/admin/logs's query): one action, texts in
 * the actor's and the target's names, and a time range in the admin's local time. A range whose end
 * is not after its start is marked on "Until" and not asked for.
 */
export function AuditFilters({ value, onChange }: AuditFiltersProps) {
  const { t, i18n } = useTranslation();
  const set = (changes: Partial<AuditFilterValues>) => onChange({ ...value, ...changes });
  const actions = useMemo(
    () =>
      ALL_AUDIT_ACTIONS.map((action) => ({
        value: action,
        label: t(auditActionKey(action), { defaultValue: action }),
      })).sort((a, b) => a.label.localeCompare(b.label, i18n.language)),
    // i18n.language: the labels change with the language even though `t` keeps its identity.
    [t, i18n.language],
  );
  const rangeOrder = auditFilterProblem(value) === 'rangeOrder';

  return (
    <Group role="search" aria-label={t('logsScreen.filters.label')} align="flex-start" gap="sm" wrap="wrap">
      <Select
        label={t('logsScreen.filters.action')}
        placeholder={t('logsScreen.filters.anyAction')}
        data={actions}
        value={value.action}
        onChange={(action) => set({ action })}
        searchable
        clearable
        w={220}
      />
      <TextInput
        label={t('logsScreen.filters.actor')}
        value={value.actor}
        maxLength={AUDIT_FILTER_TEXT_MAX}
        onChange={(event) => set({ actor: event.currentTarget.value })}
        w={160}
      />
      <TextInput
        label={t('logsScreen.filters.target')}
        value={value.target}
        maxLength={AUDIT_FILTER_TEXT_MAX}
        onChange={(event) => set({ target: event.currentTarget.value })}
        w={160}
      />
      <TextInput
        type="datetime-local"
        label={t('logsScreen.filters.from')}
        value={value.from}
        onChange={(event) => set({ from: event.currentTarget.value })}
        w={210}
      />
      <TextInput
        type="datetime-local"
        label={t('logsScreen.filters.to')}
        value={value.to}
        error={rangeOrder ? t('logsScreen.filters.rangeOrder') : undefined}
        onChange={(event) => set({ to: event.currentTarget.value })}
        w={210}
      />
      {isFiltered(value) ? (
        <Button
          variant="subtle"
          mt={25}
          leftSection={<IconFilterOff size={16} aria-hidden />}
          onClick={() => onChange(NO_AUDIT_FILTER)}
        >
          {t('logsScreen.filters.reset')}
        </Button>
      ) : null}
    </Group>
  );
}
