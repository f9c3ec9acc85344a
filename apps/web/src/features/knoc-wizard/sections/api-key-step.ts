import { z } from 'zod';
import { Cidr, ErrorCodes, type AllowedFromEntry, type WizardApiKey } from '@postern/protocol';
import { AllowedFromList, defaultAllowedFrom, keyNameSchema, trimmedEntries } from '@/features/api-keys/api-key-form';

/**
 * The API key step of a passive allowlist (spec §2, step 3.1): how the firewall reads the
 * published list. new: a key made with the knoc (name and allowed-from entries); existing: a key
 * that is given the list's scope; none: no key, the list is read by address only.
 */
export const API_KEY_OPTIONS = ['new', 'existing', 'none'] as const;
export type ApiKeyOption = (typeof API_KEY_OPTIONS)[number];

/** The step's form values; each option keeps its own fields, so switching back loses nothing. */
export interface ApiKeyStepValues {
  Option: ApiKeyOption;
  /** new: the key's name. */
  Name: string;
  /** new: where the key may be used from. */
  AllowedFrom: AllowedFromEntry[];
  /** existing: the chosen key's id ('' until one is chosen). */
  ExistingId: string;
  /** none: the CIDRs that may fetch the list without a key. */
  AllowedIpAddresses: string[];
}

/** Message keys of the step's own rules. */
export const API_KEY_STEP_MESSAGES = {
  existingRequired: 'knocWizardApplication.apiKey.existingRequired',
  ipRangeRequired: ErrorCodes.ipRangeRequired,
} as const;
const M = API_KEY_STEP_MESSAGES;

/** The starting values: a new key allowed from anywhere (the two default entries, spec §5). */
export function initialApiKeyStepValues(anywhereNotes: readonly [string, string]): ApiKeyStepValues {
  return {
    Option: 'new',
    Name: '',
    AllowedFrom: defaultAllowedFrom(anywhereNotes),
    ExistingId: '',
    AllowedIpAddresses: [''],
  };
}

/**
 * The step's rules (spec §5), for the chosen option only: new needs a name not taken by another
 * key (`takenNames`) and complete CIDR entries; existing needs a key; none needs at least one
 * address range, each a CIDR.
 */
export function apiKeyStepSchema(takenNames: readonly string[]) {
  const newKey = z.object({ Name: keyNameSchema(takenNames), AllowedFrom: AllowedFromList });
  const existingKey = z.object({ ExistingId: z.string().min(1, M.existingRequired) });
  const byAddress = z.object({
    AllowedIpAddresses: z
      .array(
        z
          .string()
          .trim()
          .refine((value) => value === '' || Cidr.safeParse(value).success, ErrorCodes.invalidCidr),
      )
      .refine((ranges) => ranges.some((range) => range.trim() !== ''), M.ipRangeRequired),
  });
  return z
    .object({ Option: z.enum(API_KEY_OPTIONS) })
    .loose()
    .superRefine((values, context) => {
      const schema = values.Option === 'new' ? newKey : values.Option === 'existing' ? existingKey : byAddress;
      const result = schema.safeParse(values);
      for (const issue of result.error?.issues ?? []) {
        context.addIssue({ code: 'custom', path: issue.path, message: issue.message });
      }
    });
}

/** Next works on the existing option only once a key is chosen; the others are checked on Next. */
export function canAdvanceApiKeyStep(values: ApiKeyStepValues): boolean {
  return values.Option !== 'existing' || values.ExistingId !== '';
}

/** The wizard body's ApiKey for the chosen option (a new key never expires: no ExpiredAfter). */
export function toWizardApiKey(values: ApiKeyStepValues): WizardApiKey {
  switch (values.Option) {
    case 'new':
      return { Option: 'new', Name: values.Name.trim(), AllowedFrom: trimmedEntries(values.AllowedFrom) };
    case 'existing':
      return { Option: 'existing', ID: values.ExistingId };
    case 'none':
      return { Option: 'none' };
  }
}

/** The allowlist knoc's access fields: by address only when no key reads it. */
export function allowlistAccess(values: ApiKeyStepValues): { AllowAccessByIp: boolean; AllowedIpAddresses: string[] } {
  if (values.Option !== 'none') return { AllowAccessByIp: false, AllowedIpAddresses: [] };
  const ranges = values.AllowedIpAddresses.map((range) => range.trim()).filter((range) => range !== '');
  return { AllowAccessByIp: true, AllowedIpAddresses: ranges };
}
