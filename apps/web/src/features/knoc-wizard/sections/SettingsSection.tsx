import { Fieldset, NativeSelect, Stack } from '@mantine/core';
import type { ReactNode } from 'react';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { backendTypeLabelKey } from '@/features/backends/backend-types';
import { AclConfigFields } from '@/features/backends/components/AclConfigFields';
import { BackendConfigFields } from '@/features/backends/components/BackendConfigFields';
import { NftablesTableSelect } from '@/features/backends/components/NftablesTableSelect';
import { defaultSettings, fieldsElsewhere, type SettingsValues } from './settings';

/** Props of {@link SettingsSection}. */
export interface SettingsSectionProps {
  form: ZodForm<SettingsValues>;
  /** The types the admin chooses between (the proxy wizard: haproxy or knocproxy); one shows no choice. */
  types: readonly BackendType[];
  /** The agent that will drive the backend (its socket and IP sets fill the defaults and choices). */
  agent: AgentRecord | null;
  /** On update the type is fixed and secrets show RECORDED. */
  mode: 'create' | 'update';
  /** Headings for the backend's and the knoc's fields (a vendor's connection and rule); none: one list. */
  legends?: { backend: string; acl: string };
}

/** The fields under their heading, when there is one. */
function Part({ legend, children }: { legend: string | undefined; children: ReactNode }) {
  return legend === undefined ? children : <Fieldset legend={legend}>{children}</Fieldset>;
}

/** Backend fields a type's own control sets instead (the nftables table select sets Family and Table). */
const setByOwnControl = (type: BackendType): readonly string[] => (type === 'nftables' ? ['Family', 'Table'] : []);

/**
 * The backend's and the knoc's config for the chosen type, with the backends screen's fields. A Linux
 * knoc shows its sets first and then the backend's managed rule; an nftables knoc's table is chosen
 * from the tables the agent reported sets in.
 */
export function SettingsSection({ form, types, agent, mode, legends }: SettingsSectionProps) {
  const { t } = useTranslation();
  const { Type: type, Backend: backendConfig } = form.getValues();
  const exclude = fieldsElsewhere(type);
  const linux = type === 'ipset' || type === 'nftables';
  const backend = (
    <Part legend={legends?.backend}>
      <BackendConfigFields
        type={type}
        form={form}
        path="Backend"
        mode={mode}
        agent={agent}
        exclude={[...exclude, ...setByOwnControl(type)]}
      />
    </Part>
  );
  const acl = (
    <Part legend={legends?.acl}>
      <AclConfigFields
        type={type}
        form={form}
        path="Acl"
        mode={mode}
        agent={agent}
        backendConfig={backendConfig}
        exclude={exclude}
      />
    </Part>
  );
  return (
    <Stack gap="md">
      {types.length > 1 ? (
        <NativeSelect
          withAsterisk
          label={t('knocWizard.settings.type')}
          data={types.map((value) => ({ value, label: t(backendTypeLabelKey(value)) }))}
          value={type}
          disabled={mode === 'update'}
          onChange={(event) => form.setValues(defaultSettings(event.currentTarget.value as BackendType, agent))}
        />
      ) : null}
      {type === 'nftables' ? (
        <NftablesTableSelect form={form} backendPath="Backend" aclPath="Acl" agent={agent} />
      ) : null}
      {linux ? acl : backend}
      {linux ? backend : acl}
    </Stack>
  );
}
