import {
  BACKEND_ADDRESS_FIELD,
  BACKEND_SECRET_FIELDS,
  RECORDED,
  type BackendType,
  type KnocEnvVar,
} from '@postern/protocol';
import { defaultAclConfig, defaultBackendConfig, type SocketDefaultsContext } from './backend-defaults';

/** Whether a config form creates a record or edits a stored one (secrets then read back RECORDED). */
export type ConfigFormMode = 'create' | 'update';

/** Config form values: one type's fields by name. */
export type ConfigValues = Record<string, unknown>;

const isSecret = (type: BackendType, field: string) => BACKEND_SECRET_FIELDS[type].includes(field);

/**
 * A backend's config as form values: a new one's defaults, or the stored fields over them with
 * every secret empty (the form shows RECORDED as its placeholder; empty keeps the stored one).
 */
export function backendConfigValues(
  type: BackendType,
  stored?: ConfigValues,
  context: SocketDefaultsContext = {},
): ConfigValues {
  const values: ConfigValues = { ...defaultBackendConfig(type, context), ...(stored ?? {}) };
  for (const field of BACKEND_SECRET_FIELDS[type]) if (stored !== undefined) values[field] = '';
  return values;
}

/** The fields that hold a value: an optional field that is off (a ManagedRule not switched on) is left out. */
export function presentFields(values: ConfigValues): ConfigValues {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/**
 * The config to send: on update an untouched (empty) secret goes back as RECORDED, kept as stored;
 * an optional field that is off is omitted.
 */
export function backendConfigForRequest(type: BackendType, values: ConfigValues, mode: ConfigFormMode): ConfigValues {
  const present = presentFields(values);
  if (mode === 'create') return present;
  return Object.fromEntries(
    Object.entries(present).map(([field, value]) => [field, isSecret(type, field) && value === '' ? RECORDED : value]),
  );
}

/**
 * The secrets to ask for again before saving an edited backend: its address (Url or Hostname)
 * changed while some secret was left as stored, which the server refuses (err.reenterCredentials)
 * so that a stored secret never goes to a host it was not entered for. `stored` is the config as
 * read back: only a secret it shows as RECORDED is stored (none binds an empty one, such as a
 * script without a webhook secret). Empty: nothing to ask.
 */
export function secretsToReenter(type: BackendType, stored: ConfigValues, values: ConfigValues): string[] {
  const addressField = BACKEND_ADDRESS_FIELD[type];
  if (addressField === undefined || stored[addressField] === values[addressField]) return [];
  return BACKEND_SECRET_FIELDS[type].filter(
    (field) => stored[field] === RECORDED && (values[field] === '' || values[field] === RECORDED),
  );
}

/**
 * A knoc's config as form values: a new one's defaults, or the stored fields over them. A sensitive
 * variable's stored value reads back RECORDED with Encrypted true; the form leaves it empty, which
 * keeps it.
 */
export function aclConfigValues(type: BackendType, stored?: ConfigValues): ConfigValues {
  const values: ConfigValues = { ...defaultAclConfig(type), ...(stored ?? {}) };
  if (type === 'haproxy' && typeof values.ID === 'number') values.ID = String(values.ID);
  if (Array.isArray(values.EnvVars)) {
    values.EnvVars = (values.EnvVars as KnocEnvVar[]).map((variable) => ({
      ...variable,
      Value: variable.Encrypted ? '' : variable.Value,
    }));
  }
  return values;
}

/** A backend's variable declaration. */
export interface EnvVarDeclaration {
  Name: string;
  Sensitive: boolean;
}

/**
 * A script knoc's variables for its backend's declarations: one row per declared name, keeping the
 * values already entered (or stored) for that name. Rows of names no longer declared are dropped.
 */
export function envVarsForDeclarations(
  declarations: readonly EnvVarDeclaration[],
  current: readonly KnocEnvVar[],
): KnocEnvVar[] {
  return declarations.map((declaration) => {
    const existing = current.find((variable) => variable.Name === declaration.Name);
    return {
      Name: declaration.Name,
      Sensitive: declaration.Sensitive,
      Value: existing?.Value ?? '',
      Encrypted: existing?.Encrypted ?? false,
    };
  });
}

/** The knoc config to send: variables without a name are dropped (spec: the wizard drops them). */
export function aclConfigForRequest(values: ConfigValues): ConfigValues {
  if (!Array.isArray(values.EnvVars)) return { ...values };
  const variables = values.EnvVars as KnocEnvVar[];
  return { ...values, EnvVars: variables.filter((variable) => variable.Name.trim() !== '') };
}
