import type { AgentRecord, BackendType } from '@postern/protocol';
import { aclFieldEntries, aclFieldLabelKey } from '../acl-fields';
import type { ConfigForm } from '../config-form';
import type { ConfigFormMode, ConfigValues } from '../config-values';
import { ConfigFieldList } from './ConfigField';

/** Props of {@link AclConfigFields}. */
export interface AclConfigFieldsProps {
  type: BackendType;
  /** A useZodForm form holding the knoc config's fields at `path`. */
  form: ConfigForm;
  /** Where the type's fields live in the form's values, e.g. `Config.ipset` or `Knoc.Config.haproxy`. */
  path: string;
  /** The backend's agent: an ipset knoc's set names are chosen from the sets it reported. */
  agent: AgentRecord | null;
  /** The backend's config of this type: an nftables knoc's sets are those of its table. */
  backendConfig?: ConfigValues;
  /** update: stored sensitive variable values show RECORDED and are kept while left empty. */
  mode: ConfigFormMode;
  /** Fields shown elsewhere (the script wizard's variables have a step of their own). */
  exclude?: readonly string[];
}

/**
 * A knoc's config fields for its backend type (spec §3 table), bound to a form at `path`; an error of
 * the config as a whole (err.ipsetNameRequired) shows below them. Allowlist has none here.
 */
export function AclConfigFields({ type, form, path, agent, backendConfig, mode, exclude = [] }: AclConfigFieldsProps) {
  return (
    <ConfigFieldList
      form={form}
      path={path}
      entries={aclFieldEntries(type).filter(([field]) => !exclude.includes(field))}
      labelKey={(field) => aclFieldLabelKey(type, field)}
      mode={mode}
      agent={agent}
      backendConfig={backendConfig}
    />
  );
}
