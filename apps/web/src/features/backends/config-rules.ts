import { z } from 'zod';
import {
  ACL_CONFIG_SCHEMAS,
  BACKEND_TYPES,
  backendFieldsSchema,
  ErrorCodes,
  type BackendType,
} from '@postern/protocol';
import type { IssueKey } from '@/lib/forms/zod-form-errors';
import type { ConfigFormMode } from './config-values';

/** Message keys of the config forms' own texts (the protocol's zod defaults are developer English). */
export const CONFIG_MESSAGES = {
  required: 'backendsScreen.validation.required',
  port: 'backendsScreen.validation.port',
  controlCharacters: 'backendsScreen.validation.controlCharacters',
  tooLong: 'form.tooLong',
} as const;

/**
 * The text key of a config form's issue: an `err.` message is the spec's own; an empty or missing
 * value is "required"; a number out of range a port rule; a string too long "too long".
 */
export const configIssueKey: IssueKey = (issue) => {
  if (issue.message.startsWith('err.')) return undefined;
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    if (issue.origin === 'number') return CONFIG_MESSAGES.port;
    return issue.code === 'too_small' ? CONFIG_MESSAGES.required : CONFIG_MESSAGES.tooLong;
  }
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value') return CONFIG_MESSAGES.required;
  if (issue.code === 'invalid_format') return CONFIG_MESSAGES.controlCharacters;
  return undefined;
};

interface NamedVariable {
  Name?: unknown;
  Value?: unknown;
  Encrypted?: unknown;
}

const nameOf = (variable: NamedVariable) => (typeof variable.Name === 'string' ? variable.Name.trim() : '');

/**
 * The spec's variable rules the protocol leaves to the form (§5), as issues under `path`: names are
 * unique (err.repeatedEnvVarNames on the later row's name) and, for a knoc's values, a named
 * variable needs a value unless a stored encrypted one is kept (err.envVarValueRequired).
 */
export function addEnvVarIssues(
  variables: unknown,
  context: z.RefinementCtx,
  path: readonly (string | number)[],
  options: { valuesRequired: boolean },
): void {
  if (!Array.isArray(variables)) return;
  const seen = new Set<string>();
  (variables as NamedVariable[]).forEach((variable, index) => {
    const name = nameOf(variable);
    if (name !== '' && seen.has(name)) {
      context.addIssue({ code: 'custom', path: [...path, index, 'Name'], message: ErrorCodes.repeatedEnvVarNames });
    }
    seen.add(name);
    const value = typeof variable.Value === 'string' ? variable.Value : '';
    if (options.valuesRequired && name !== '' && value === '' && variable.Encrypted !== true) {
      context.addIssue({ code: 'custom', path: [...path, index, 'Value'], message: ErrorCodes.envVarValueRequired });
    }
  });
}

const isBackendType = (key: string): key is BackendType => (BACKEND_TYPES as readonly string[]).includes(key);

/**
 * A form's rules for a `{ <type>: fields }` config: the protocol's schema of whichever type the
 * config holds, then the variable rules. Unlike the protocol's BackendConfig and AclConfig, each
 * issue keeps its code, so that the form can say "required" for an empty field.
 */
function typedConfigSchema(
  schemaOf: (type: BackendType) => z.ZodType,
  missingType: string,
  envVars: { valuesRequired: boolean },
) {
  return z.record(z.string(), z.unknown()).superRefine((config, context) => {
    const [type, ...others] = Object.keys(config).filter(isBackendType);
    if (type === undefined || others.length > 0) {
      context.addIssue({ code: 'custom', message: missingType });
      return;
    }
    addIssuesUnder(schemaOf(type), config[type] ?? {}, context, [type]);
    const fields = config[type];
    if (fields !== null && typeof fields === 'object' && 'EnvVars' in fields) {
      addEnvVarIssues(fields.EnvVars, context, [type, 'EnvVars'], envVars);
    }
  });
}

/** Checks `value` with `schema` and adds its issues, codes kept, under `path` of the outer value. */
export function addIssuesUnder(
  schema: z.ZodType,
  value: unknown,
  context: z.RefinementCtx,
  path: readonly (string | number)[],
): void {
  const result = schema.safeParse(value);
  for (const issue of result.error?.issues ?? []) context.addIssue({ ...issue, path: [...path, ...issue.path] });
}

/** The rules of a backend config form's Config value (`{ <type>: fields }`). */
export function backendConfigFormSchema(mode: ConfigFormMode) {
  return typedConfigSchema((type) => backendFieldsSchema(type, mode), ErrorCodes.backendConfigOneType, {
    valuesRequired: false,
  });
}

/** The rules of a knoc config form's Config value (`{ <type>: fields }`). */
export function aclConfigFormSchema() {
  return typedConfigSchema((type) => ACL_CONFIG_SCHEMAS[type], ErrorCodes.noBackendSelected, { valuesRequired: true });
}
