import { z } from 'zod';
import { ACL_CONFIG_SCHEMAS, BackendType, backendFieldsSchema, type AgentRecord } from '@postern/protocol';
import { defaultAclConfig, defaultBackendConfig } from '@/features/backends/backend-defaults';
import type { ConfigFormMode } from '@/features/backends/config-values';

/** The Settings form: the backend's config and the knoc's (ACL) config for one backend type. */
export interface SettingsValues {
  Type: BackendType;
  Backend: Record<string, unknown>;
  Acl: Record<string, unknown>;
}

/** Fields the settings leave to another step: a script's variables have the Variables step. */
export function fieldsElsewhere(type: BackendType): readonly string[] {
  return type === 'script' ? ['EnvVars'] : [];
}

/**
 * The settings' rules of a type: the protocol's, without the fields another step holds; on update a
 * secret may stay empty (the stored one is kept).
 */
function partSchemas(type: BackendType, mode: ConfigFormMode): { Backend: z.ZodType; Acl: z.ZodType } {
  if (type === 'script') {
    return {
      // EnvVars are missing here (they default to none), so only the other fields' rules apply.
      Backend: backendFieldsSchema('script', mode),
      Acl: ACL_CONFIG_SCHEMAS.script.omit({ EnvVars: true }),
    };
  }
  return { Backend: backendFieldsSchema(type, mode), Acl: ACL_CONFIG_SCHEMAS[type] };
}

/**
 * The Settings form's rules: the chosen type's backend and ACL config schemas, their issues (with
 * their codes, for configIssueKey's texts) under `Backend.<field>` and `Acl.<field>`; an issue about
 * the whole ACL config, such as "at least one set name", under `Acl`.
 */
export function settingsSchemaFor(mode: ConfigFormMode) {
  return z
    .object({ Type: BackendType, Backend: z.record(z.string(), z.unknown()), Acl: z.record(z.string(), z.unknown()) })
    .superRefine((values, ctx) => {
      const schemas = partSchemas(values.Type, mode);
      for (const part of ['Backend', 'Acl'] as const) {
        for (const issue of schemas[part].safeParse(values[part]).error?.issues ?? []) {
          ctx.addIssue({ ...issue, path: [part, ...issue.path] });
        }
      }
    });
}

/** The wizards' Settings rules: a new knoc's secrets are required. */
export const settingsSchema = settingsSchemaFor('create');

const withoutFields = (config: Record<string, unknown>, fields: readonly string[]) =>
  Object.fromEntries(Object.entries(config).filter(([field]) => !fields.includes(field)));

/** A new knoc's settings for a type on an agent: the spec's defaults (the agent's HAProxy socket). */
export function defaultSettings(type: BackendType, agent: AgentRecord | null): SettingsValues {
  const elsewhere = fieldsElsewhere(type);
  const agentSocket = agent?.Capabilities?.haproxy.socket_location ?? null;
  return {
    Type: type,
    Backend: withoutFields(defaultBackendConfig(type, { agentSocket }), elsewhere),
    Acl: withoutFields(defaultAclConfig(type), elsewhere),
  };
}

/** The IP sets of one address family the agent reported (the Linux wizard's choices). */
export function agentSetNames(agent: AgentRecord | null, family: 'inet' | 'inet6'): string[] {
  return (agent?.Capabilities?.ipset.ipsets ?? [])
    .filter((set) => set.address_family === family)
    .map((set) => set.name);
}
