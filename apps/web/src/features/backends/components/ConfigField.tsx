import { Checkbox, NativeSelect, Stack, NumberInput, PasswordInput, Select, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { RECORDED, type AgentRecord } from '@postern/protocol';
import type { ConfigFieldDescriptor, ConfigFieldEntry } from '../backend-fields';
import { setConfigValue, type ConfigForm } from '../config-form';
import type { ConfigFormMode, ConfigValues } from '../config-values';
import { ConfigError } from './ConfigError';
import { EnvVarDeclarationRows, EnvVarValueRows } from './EnvVarRows';
import { ManagedRuleFields } from './ManagedRuleFields';
import { NftablesSetSelect } from './NftablesSetSelect';

/** Props of {@link ConfigField}. */
export interface ConfigFieldProps {
  form: ConfigForm;
  /** The field's full dotted path in the form (`Config.fortios.Url`). */
  path: string;
  descriptor: ConfigFieldDescriptor;
  label: string;
  mode: ConfigFormMode;
  /** The chosen agent, whose reported IP sets an ipset name is picked from. */
  agent: AgentRecord | null;
  /** A knoc config's backend config: an nftables set is picked from the sets of its table. */
  backendConfig?: ConfigValues;
  /** Replaces the input's own change handling (the socket Protocol also moves its Address). */
  onValueChange?: (value: string) => void;
}

/** Props of {@link ConfigFieldList}. */
export interface ConfigFieldListProps {
  form: ConfigForm;
  /** Where the config's fields live in the form (`Config.fortios`). */
  path: string;
  entries: readonly ConfigFieldEntry[];
  /** The text key of a field's label. */
  labelKey: (field: string) => string;
  mode: ConfigFormMode;
  agent: AgentRecord | null;
  backendConfig?: ConfigValues;
  /** A field whose changes the caller handles itself, and how. */
  onChange?: { field: string; handle: (value: string) => void };
}

/** A config's fields in order, and below them the error of the config as a whole. */
export function ConfigFieldList({
  form,
  path,
  entries,
  labelKey,
  mode,
  agent,
  backendConfig,
  onChange,
}: ConfigFieldListProps) {
  const { t } = useTranslation();
  return (
    <Stack gap="sm">
      {entries.map(([field, descriptor]) => (
        <ConfigField
          key={field}
          form={form}
          path={`${path}.${field}`}
          descriptor={descriptor}
          label={t(labelKey(field))}
          mode={mode}
          agent={agent}
          backendConfig={backendConfig}
          onValueChange={onChange?.field === field ? onChange.handle : undefined}
        />
      ))}
      <ConfigError error={form.errors[path]} />
    </Stack>
  );
}

/** One backend or knoc config field, drawn by its descriptor's kind and bound to the form at `path`. */
export function ConfigField({
  form,
  path,
  descriptor,
  label,
  mode,
  agent,
  backendConfig,
  onValueChange,
}: ConfigFieldProps) {
  const { t } = useTranslation();
  const { kind, required = false, placeholder, options = [] } = descriptor;
  const hint = descriptor.description === undefined ? undefined : t(descriptor.description);
  const text = { label, placeholder, description: hint, autoComplete: 'off', spellCheck: false } as const;

  switch (kind) {
    case 'text':
    case 'url':
    case 'hostname':
      return (
        <TextInput
          {...text}
          required={required}
          inputMode={descriptor.numeric === true ? 'numeric' : kind === 'url' ? 'url' : undefined}
          {...form.getInputProps(path)}
        />
      );
    case 'secret': {
      // Editing: the stored secret stays unless a new one is typed, so it is not required then.
      const keeping = mode === 'update';
      return (
        <PasswordInput
          label={label}
          required={required && !keeping}
          placeholder={keeping ? RECORDED : undefined}
          description={keeping ? t('backendsScreen.secretKept') : hint}
          autoComplete="new-password"
          {...form.getInputProps(path)}
        />
      );
    }
    case 'checkbox':
      return <Checkbox label={label} {...form.getInputProps(path, { type: 'checkbox' })} />;
    case 'select': {
      const change = onValueChange ?? ((value: string) => setConfigValue(form, path, value));
      return (
        <NativeSelect
          label={label}
          required={required}
          data={options.map((value) => ({ value, label: t(`backendsScreen.options.${value}`) }))}
          {...form.getInputProps(path)}
          onChange={(event) => change(event.currentTarget.value)}
        />
      );
    }
    case 'number':
      return (
        <NumberInput
          label={label}
          required={required}
          min={1}
          max={65535}
          allowDecimal={false}
          allowNegative={false}
          {...form.getInputProps(path)}
        />
      );
    case 'ipsetName':
      return <IpsetNameSelect form={form} path={path} label={label} agent={agent} family={descriptor.family} />;
    case 'nftablesSetName':
      return (
        <NftablesSetSelect
          form={form}
          path={path}
          label={label}
          agent={agent}
          backendConfig={backendConfig}
          setType={descriptor.setType}
        />
      );
    case 'managedRule':
      return (
        <ManagedRuleFields
          form={form}
          path={path}
          label={label}
          chainExample={placeholder}
          chainHint={descriptor.description}
        />
      );
    case 'envVarDeclarations':
      return <EnvVarDeclarationRows form={form} path={path} label={label} />;
    case 'envVarValues':
      return <EnvVarValueRows form={form} path={path} label={label} />;
    case 'managedElsewhere':
      return null;
  }
}

/**
 * An IP set name: one of the sets the agent reported for the address family, since the server
 * refuses names the agent did not report. A stored name the agent no longer reports stays choosable.
 */
function IpsetNameSelect({
  form,
  path,
  label,
  agent,
  family,
}: {
  form: ConfigForm;
  path: string;
  label: string;
  agent: AgentRecord | null;
  family: 'inet' | 'inet6' | undefined;
}) {
  const { t } = useTranslation();
  const input = form.getInputProps(path);
  const current = typeof input.value === 'string' ? input.value : '';
  const reported = (agent?.Capabilities?.ipset.ipsets ?? [])
    .filter((set) => set.address_family === family)
    .map((set) => set.name);
  const names = current === '' || reported.includes(current) ? reported : [current, ...reported];
  return (
    <Select
      label={label}
      data={names}
      clearable
      searchable
      placeholder={t(names.length === 0 ? 'backendsScreen.noIpsets' : 'backendsScreen.chooseIpset')}
      nothingFoundMessage={t('backendsScreen.noIpsets')}
      {...input}
      value={current === '' ? null : current}
      onChange={(value) => setConfigValue(form, path, value ?? '')}
    />
  );
}
