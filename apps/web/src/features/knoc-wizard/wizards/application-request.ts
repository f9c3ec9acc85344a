import type { z } from 'zod';
import type { KnocWizardCreateBody } from '@postern/protocol';
import { allowlistAccess, toWizardApiKey, type ApiKeyStepValues } from '../sections/api-key-step';
import type { ApplicationSettingsValues } from '../sections/application-settings';
import { vendorBackendType } from './application-flow';

type CreateInput = z.input<typeof KnocWizardCreateBody>;
/** The knoc's options as the create body has them (Description and URL come from the settings). */
export type ApplicationKnocOptions = Omit<CreateInput['Knoc'], 'Config' | 'Description' | 'URL'>;

/** Everything the application wizard collected, in the shape to-request reads it. */
export interface ApplicationRequestParts {
  settings: ApplicationSettingsValues;
  options: ApplicationKnocOptions;
  apiKey: ApiKeyStepValues;
  agentId: string | null;
  userIds: string[];
  groupIds: string[];
  /** The backends' names: the knoc's own, and passive+'s refresh backend (unique, see uniqueBackendName). */
  backendNames: { knoc: string; refresh: string };
}

/** The name of passive+'s second backend, derived from the knoc's (backend names are unique). */
export function refreshBackendBase(description: string): string {
  return `${description.trim()} (EDL refresh)`;
}

/**
 * The application wizard's create body (spec §4 creation sequence, server's KnocWizardCreateBody):
 * passive: an allowlist backend with no agent, the key choice (or, with none, the addresses that
 * may read the list); passive+: the same plus the PAN-OS backend on the agent and the hidden child
 * knoc's config (PassivePlus); active: the vendor's backend on the agent and no key.
 */
export function toApplicationCreateInput(parts: ApplicationRequestParts): CreateInput {
  const { settings, options, apiKey, agentId, backendNames } = parts;
  const knoc = { ...options, Description: settings.Description.trim(), URL: settings.URL.trim() };
  const members = { UserIDs: parts.userIds, GroupIDs: parts.groupIds };
  const vendorType = vendorBackendType(settings.ApplicationType, settings.Vendor);
  if (settings.ApplicationType === 'active' && vendorType !== null) {
    return {
      Backend: { Name: backendNames.knoc, AgentID: agentId, Config: { [vendorType]: settings.Backend } },
      ApiKey: { Option: 'none' },
      Knoc: { ...knoc, Config: { [vendorType]: settings.Acl } },
      ...members,
    };
  }
  const published: CreateInput = {
    Backend: { Name: backendNames.knoc, Config: { allowlist: {} } },
    ApiKey: toWizardApiKey(apiKey),
    Knoc: { ...knoc, Config: { allowlist: allowlistAccess(apiKey) } },
    ...members,
  };
  if (settings.ApplicationType !== 'passive+' || vendorType === null) return published;
  return {
    ...published,
    PassivePlus: {
      Backend: { Name: backendNames.refresh, AgentID: agentId, Config: { [vendorType]: settings.Backend } },
      Config: { [vendorType]: settings.Acl },
    },
  };
}
