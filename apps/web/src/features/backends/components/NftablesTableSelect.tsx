import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AgentRecord } from '@postern/protocol';
import { configAt, setConfigValue, type ConfigForm } from '../config-form';
import { nftablesSetChoices, nftablesTableOf, reportedNftablesTables, type NftablesTable } from '../nftables-sets';

/** Props of {@link NftablesTableSelect}. */
export interface NftablesTableSelectProps {
  form: ConfigForm;
  /** Where the nftables backend config (Family, Table) lives in the form (`Backend`). */
  backendPath: string;
  /** Where the knoc's config (V4SetName, V6SetName) lives in the form (`Acl`). */
  aclPath: string;
  agent: AgentRecord | null;
}

const SET_FIELDS = [
  ['V4SetName', 'ipv4_addr'],
  ['V6SetName', 'ipv6_addr'],
] as const;

const keyOf = (table: NftablesTable) => `${table.family} ${table.table}`;

/**
 * The nftables table of a wizard's knoc, chosen from the tables the agent reported sets in: it sets
 * the backend's Family and Table together, and clears a chosen set that the new table does not hold.
 * A stored table the agent no longer reports stays choosable.
 */
export function NftablesTableSelect({ form, backendPath, aclPath, agent }: NftablesTableSelectProps) {
  const { t } = useTranslation();
  const current = nftablesTableOf(configAt(form, backendPath));
  const reported = reportedNftablesTables(agent);
  const tables =
    current.table === '' || reported.some((table) => keyOf(table) === keyOf(current))
      ? reported
      : [current, ...reported];

  const choose = (key: string | null) => {
    const table = tables.find((candidate) => keyOf(candidate) === key) ?? { family: current.family, table: '' };
    setConfigValue(form, `${backendPath}.Family`, table.family);
    setConfigValue(form, `${backendPath}.Table`, table.table);
    const acl = configAt(form, aclPath);
    for (const [field, type] of SET_FIELDS) {
      const held = nftablesSetChoices(agent, table, type).some((choice) => choice.name === acl[field]);
      if (!held) setConfigValue(form, `${aclPath}.${field}`, '');
    }
  };

  return (
    <Select
      label={t('backendsScreen.nftables.table')}
      description={t('backendsScreen.nftables.tableHint')}
      withAsterisk
      data={tables.map((table) => ({
        value: keyOf(table),
        label: t('backendsScreen.nftables.tableOption', { family: table.family, table: table.table }),
      }))}
      placeholder={t(tables.length === 0 ? 'backendsScreen.nftables.noTables' : 'backendsScreen.nftables.chooseTable')}
      nothingFoundMessage={t('backendsScreen.nftables.noTables')}
      value={current.table === '' ? null : keyOf(current)}
      onChange={choose}
      error={form.errors[`${backendPath}.Table`] ?? form.errors[`${backendPath}.Family`]}
    />
  );
}
