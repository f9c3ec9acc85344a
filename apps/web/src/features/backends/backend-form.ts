import { z } from 'zod';
import {
  BACKEND_TYPES,
  NO_AGENT_ID,
  RequiredName,
  type BackendCreateBody,
  type BackendRecord,
  type BackendType,
  type BackendUpdateBody,
} from '@postern/protocol';
import { needsAgent } from './backend-types';
import { addIssuesUnder, backendConfigFormSchema, CONFIG_MESSAGES } from './config-rules';
import { backendConfigForRequest, backendConfigValues, type ConfigFormMode, type ConfigValues } from './config-values';

/** The values of the backend dialog. Type is '' until chosen; Config holds the chosen type's fields only. */
export interface BackendFormValues {
  Name: string;
  Type: BackendType | '';
  AgentID: string;
  Config: Record<string, ConfigValues>;
}

const isBackendType = (value: string): value is BackendType => (BACKEND_TYPES as readonly string[]).includes(value);

/**
 * The dialog's rules (spec §5): Name and Type required, an agent for every type but allowlist, and
 * the chosen type's config. The config is checked only once a type is chosen.
 */
export function backendFormSchema(mode: ConfigFormMode) {
  const config = backendConfigFormSchema(mode);
  return z
    .object({ Name: RequiredName, Type: z.string(), AgentID: z.string(), Config: z.unknown() })
    .loose()
    .superRefine((values, context) => {
      if (!isBackendType(values.Type)) {
        context.addIssue({ code: 'custom', path: ['Type'], message: CONFIG_MESSAGES.required });
        return;
      }
      if (needsAgent(values.Type) && values.AgentID === '') {
        context.addIssue({ code: 'custom', path: ['AgentID'], message: CONFIG_MESSAGES.required });
      }
      addIssuesUnder(config, values.Config, context, ['Config']);
    });
}

/** A new backend's values, or a stored one's (its secrets empty: kept unless re-entered). */
export function backendFormValues(backend?: BackendRecord): BackendFormValues {
  if (backend === undefined) return { Name: '', Type: '', AgentID: '', Config: {} };
  return {
    Name: backend.Name,
    Type: backend.Type,
    AgentID: backend.AgentID === NO_AGENT_ID ? '' : backend.AgentID,
    Config: { [backend.Type]: backendConfigValues(backend.Type, backend.Config[backend.Type] ?? {}) },
  };
}

/** The chosen type's config values. */
export function chosenConfig(values: BackendFormValues, type: BackendType): ConfigValues {
  return values.Config[type] ?? {};
}

function bodyFields(values: BackendFormValues, type: BackendType, mode: ConfigFormMode) {
  return {
    Name: values.Name.trim(),
    Config: { [type]: backendConfigForRequest(type, chosenConfig(values, type), mode) },
  };
}

/** POST body of a validated dialog; an allowlist has no agent. */
export function toBackendCreateBody(values: BackendFormValues, type: BackendType): z.input<typeof BackendCreateBody> {
  return { ...bodyFields(values, type, 'create'), AgentID: needsAgent(type) ? values.AgentID : null };
}

/** PUT body of a validated dialog (spec §7: AgentID omitted when there is none). */
export function toBackendUpdateBody(
  backend: BackendRecord,
  values: BackendFormValues,
): z.input<typeof BackendUpdateBody> {
  const agent = needsAgent(backend.Type) && values.AgentID !== '' ? { AgentID: values.AgentID } : {};
  return { ID: backend.ID, ...bodyFields(values, backend.Type, 'update'), ...agent };
}
