import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { aclFieldEntries, aclFieldLabelKey } from '../acl-fields';
import type { ConfigForm } from '../config-form';
import type { ConfigFormMode } from '../config-values';
import { ConfigError } from './ConfigError';
import { ConfigField } from './ConfigField';

/** Props of {@link AclConfigFields}. */
export interface AclConfigFieldsProps {
  type: BackendType;
  /** A useZodForm form holding the knoc config's fields at `path`. */
  form: ConfigForm;
  /** Where the type's fields live in the form's values, e.g. `Config.ipset` or `Knoc.Config.haproxy`. */
  path: string;
  /** The backend's agent: an ipset knoc's set names are chosen from the sets it reported. */
  agent: AgentRecord | null;
  /** update: stored sensitive variable values show RECORDED and are kept while left empty. */
  mode: ConfigFormMode;
  /** Fields shown elsewhere (the script wizard's variables have a step of their own). */
  exclude?: readonly string[];
}

/**
 * A knoc's config fields for its backend type (spec §3 table), bound to a form at `path`; an error of
 * the config as a whole (err.ipsetNameRequired) shows below them. Allowlist has none here.
 */
export function AclConfigFields({ type, form, path, agent, mode, exclude = [] }: AclConfigFieldsProps) {
  const { t } = useTranslation();
  return (
    <Stack gap="sm">
      {aclFieldEntries(type)
        .filter(([field]) => !exclude.includes(field))
        .map(([field, descriptor]) => (
          <ConfigField
            key={field}
            form={form}
            path={`${path}.${field}`}
            descriptor={descriptor}
            label={t(aclFieldLabelKey(type, field))}
            mode={mode}
            agent={agent}
          />
        ))}
      <ConfigError error={form.errors[path]} />
    </Stack>
  );
}
