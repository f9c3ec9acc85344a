import { Select } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AgentRecord } from '@postern/protocol';
import { setConfigValue, type ConfigForm } from '../config-form';
import type { ConfigValues } from '../config-values';
import { nftablesSetChoices, nftablesTableOf, type NftablesSetType } from '../nftables-sets';

/** Props of {@link NftablesSetSelect}. */
export interface NftablesSetSelectProps {
  form: ConfigForm;
  path: string;
  label: string;
  agent: AgentRecord | null;
  /** The backend's config: its Family and Table hold the sets offered. */
  backendConfig: ConfigValues | undefined;
  setType: NftablesSetType | undefined;
}

/**
 * An nftables set: one the agent reported in the backend's table with this element type (the server
 * refuses others). A set without `flags timeout` is listed disabled with the reason; a stored name
 * the agent no longer reports stays choosable.
 */
export function NftablesSetSelect({ form, path, label, agent, backendConfig, setType }: NftablesSetSelectProps) {
  const { t } = useTranslation();
  const input = form.getInputProps(path);
  const current = typeof input.value === 'string' ? input.value : '';
  const choices = setType === undefined ? [] : nftablesSetChoices(agent, nftablesTableOf(backendConfig), setType);
  const data = choices.map((choice) => ({
    value: choice.name,
    label: choice.reason === null ? choice.name : `${choice.name} (${t(choice.reason)})`,
    disabled: choice.disabled,
  }));
  const known = choices.some((choice) => choice.name === current);
  const options = current === '' || known ? data : [{ value: current, label: current, disabled: false }, ...data];
  return (
    <Select
      label={label}
      data={options}
      clearable
      searchable
      placeholder={t(options.length === 0 ? 'backendsScreen.nftables.noSets' : 'backendsScreen.nftables.chooseSet')}
      nothingFoundMessage={t('backendsScreen.nftables.noSets')}
      {...input}
      value={current === '' ? null : current}
      onChange={(value) => setConfigValue(form, path, value ?? '')}
    />
  );
}
