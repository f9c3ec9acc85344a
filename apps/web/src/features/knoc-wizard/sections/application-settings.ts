import { z } from 'zod';
import { ACL_CONFIG_SCHEMAS, BACKEND_CONFIG_SCHEMAS, knocFields } from '@postern/protocol';
import type { IssueKey } from '@/lib/forms/zod-form-errors';
import { descriptionIssueKey } from './knoc-options';
import { defaultAclConfig, defaultBackendConfig } from '@/features/backends/backend-defaults';
import {
  APPLICATION_TYPES,
  VENDORS,
  vendorBackendType,
  vendorForType,
  type ApplicationType,
  type Vendor,
} from '../wizards/application-flow';

/**
 * Step 1 of the application wizard (spec §2): the application type, the vendor, the knoc's
 * description and URL, and the vendor's backend and rule config (none for passive, whose firewall
 * only reads the published list).
 */
export interface ApplicationSettingsValues {
  ApplicationType: ApplicationType;
  Vendor: Vendor;
  Description: string;
  URL: string;
  /** The fields of the vendor backend (`vendorBackendType`); {} for passive. */
  Backend: Record<string, unknown>;
  /** The knoc's fields for that backend; {} for passive. */
  Acl: Record<string, unknown>;
}

/** Message keys of the step's own rules. */
export const APPLICATION_SETTINGS_MESSAGES = {
  required: 'backendsScreen.validation.required',
  invalid: 'knocWizardApplication.settings.invalid',
} as const;
const M = APPLICATION_SETTINGS_MESSAGES;

/** The Description's texts are the Knoc options' (the config issues carry their own keys). */
export const applicationSettingsIssueKey: IssueKey = (issue) =>
  issue.path[0] === 'Description' ? descriptionIssueKey(issue) : undefined;

/** The config forms of a type with the spec's defaults, {} when there is no vendor backend. */
function vendorConfig(type: ApplicationType, vendor: Vendor): Pick<ApplicationSettingsValues, 'Backend' | 'Acl'> {
  const backendType = vendorBackendType(type, vendor);
  if (backendType === null) return { Backend: {}, Acl: {} };
  return { Backend: defaultBackendConfig(backendType), Acl: defaultAclConfig(backendType) };
}

/** A new application knoc's settings: passive, Fortinet, nothing typed. */
export function initialApplicationSettings(): ApplicationSettingsValues {
  return { ApplicationType: 'passive', Vendor: 'fortinet', Description: '', URL: '', Backend: {}, Acl: {} };
}

/**
 * The settings after choosing another application type or vendor: the vendor follows the type's
 * rule (passive+ forces palo, active starts at fortinet); the config starts again from the new
 * backend type's defaults, unless the backend type stayed the same (what was typed is kept).
 */
export function changeApplication(
  values: ApplicationSettingsValues,
  change: { ApplicationType?: ApplicationType; Vendor?: Vendor },
): ApplicationSettingsValues {
  const type = change.ApplicationType ?? values.ApplicationType;
  const vendor =
    change.ApplicationType === undefined ? (change.Vendor ?? values.Vendor) : vendorForType(type, values.Vendor);
  const before = vendorBackendType(values.ApplicationType, values.Vendor);
  const after = vendorBackendType(type, vendor);
  const config = before === after ? { Backend: values.Backend, Acl: values.Acl } : vendorConfig(type, vendor);
  return { ...values, ApplicationType: type, Vendor: vendor, ...config };
}

/** The text key of a protocol issue that carries no err.* key of its own. */
function issueKey(issue: z.core.$ZodIssue): string {
  if (issue.message.startsWith('err.')) return issue.message;
  return issue.code === 'too_small' || issue.code === 'invalid_type' || issue.code === 'invalid_value'
    ? M.required
    : M.invalid;
}

const filled = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/**
 * The PAN-OS rules the protocol leaves to the kind of knoc: passive+ names the external list the
 * firewall refreshes (EDLName) and, through Panorama (a DeviceGroup), the firewall's SerialNumber;
 * active names the address group it fills (GroupName).
 */
export function panosIssues(
  values: Pick<ApplicationSettingsValues, 'ApplicationType' | 'Backend' | 'Acl'>,
): { path: string[] }[] {
  const needed =
    values.ApplicationType === 'passive+'
      ? ['EDLName', ...(filled(values.Backend.DeviceGroup) ? ['SerialNumber'] : [])]
      : ['GroupName'];
  return needed.filter((field) => !filled(values.Acl[field])).map((field) => ({ path: ['Acl', field] }));
}

/**
 * The step's rules: Description required, URL empty or http(s) (as the server's), and the vendor
 * backend's and rule's protocol schemas with their issues under `Backend.<field>` and `Acl.<field>`.
 */
export const applicationSettingsSchema = z
  .object({
    ApplicationType: z.enum(APPLICATION_TYPES),
    Vendor: z.enum(VENDORS),
    Description: knocFields.Description,
    URL: knocFields.URL,
    Backend: z.record(z.string(), z.unknown()),
    Acl: z.record(z.string(), z.unknown()),
  })
  .superRefine((values, ctx) => {
    const type = vendorBackendType(values.ApplicationType, values.Vendor);
    if (type === null) return;
    const parts = { Backend: BACKEND_CONFIG_SCHEMAS[type], Acl: ACL_CONFIG_SCHEMAS[type] };
    for (const part of ['Backend', 'Acl'] as const) {
      const result = parts[part].safeParse(values[part]);
      for (const issue of result.error?.issues ?? []) {
        ctx.addIssue({ code: 'custom', path: [part, ...issue.path], message: issueKey(issue) });
      }
    }
    if (type === 'panos') {
      for (const { path } of panosIssues(values)) ctx.addIssue({ code: 'custom', path, message: M.required });
    }
  });
