import { z } from 'zod';
import {
  ACL_CONFIG_SCHEMAS,
  BACKEND_CONFIG_SCHEMAS,
  BackendType,
  HAPROXY_DEFAULT_UNIX_SOCKET,
  type AgentRecord,
} from '@postern/protocol';

/** The Settings form: the backend's config and the knoc's (ACL) config for one backend type. */
export interface SettingsValues {
  Type: BackendType;
  Backend: Record<string, unknown>;
  Acl: Record<string, unknown>;
}

/** The settings' rules of a type: the protocol's; a script's variables have a step of their own. */
function partSchemas(type: BackendType): { Backend: z.ZodType; Acl: z.ZodType } {
  if (type === 'script') {
    return {
      Backend: BACKEND_CONFIG_SCHEMAS.script.omit({ EnvVars: true }),
      Acl: ACL_CONFIG_SCHEMAS.script.omit({ EnvVars: true }),
    };
  }
  return { Backend: BACKEND_CONFIG_SCHEMAS[type], Acl: ACL_CONFIG_SCHEMAS[type] };
}

/** The text key of a protocol issue without an err.* key of its own. */
function settingsIssueKey(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('err.')) return issue.message;
  return issue.code === 'too_small' || issue.code === 'invalid_type'
    ? 'knocWizard.settings.required'
    : 'knocWizard.settings.invalid';
}

/**
 * The Settings form's rules: the chosen type's backend and ACL config schemas, their issues under
 * `Backend.<field>` and `Acl.<field>` (an issue about the whole ACL config, such as "at least one
 * set name", under `Acl`).
 */
export const settingsSchema = z
  .object({ Type: BackendType, Backend: z.record(z.string(), z.unknown()), Acl: z.record(z.string(), z.unknown()) })
  .superRefine((values, ctx) => {
    const schemas = partSchemas(values.Type);
    for (const part of ['Backend', 'Acl'] as const) {
      const result = schemas[part].safeParse(values[part]);
      if (result.success) continue;
      for (const issue of result.error.issues) {
        ctx.addIssue({ code: 'custom', path: [part, ...issue.path], message: settingsIssueKey(issue) });
      }
    }
  });

/** Where the agent's runtime API or proxy listens by default: its reported socket, else the spec's. */
function defaultSocket(agent: AgentRecord | null): Record<string, unknown> {
  const socket = agent?.Capabilities?.haproxy.socket_location ?? '';
  return { Protocol: 'unix', Address: socket === '' ? HAPROXY_DEFAULT_UNIX_SOCKET : socket };
}

/** A new knoc's settings for a type on an agent: the spec's defaults. */
export function defaultSettings(type: BackendType, agent: AgentRecord | null): SettingsValues {
  switch (type) {
    case 'ipset':
      return { Type: type, Backend: {}, Acl: { V4SetName: '', V6SetName: '' } };
    case 'haproxy':
      return { Type: type, Backend: defaultSocket(agent), Acl: { ID: '' } };
    case 'knocproxy':
      return { Type: type, Backend: defaultSocket(agent), Acl: { Name: '' } };
    case 'script':
      return { Type: type, Backend: { Command: '' }, Acl: { Name: '' } };
    default:
      return { Type: type, Backend: {}, Acl: {} };
  }
}

/** The IP sets of one address family the agent reported (the Linux wizard's choices). */
export function agentSetNames(agent: AgentRecord | null, family: 'inet' | 'inet6'): string[] {
  return (agent?.Capabilities?.ipset.ipsets ?? [])
    .filter((set) => set.address_family === family)
    .map((set) => set.name);
}
