import { BackendType, ErrorCodes, type KnocRecord } from '@postern/protocol';
import { APPLICATION_SETTINGS_MESSAGES, panosIssues } from '../sections/application-settings';
import { settingsSchemaFor, type SettingsValues } from '../sections/settings';
import {
  applicationTypeOfConfig,
  VENDOR_BACKEND_TYPE,
  VENDORS,
  type ApplicationType,
  type Vendor,
} from '../wizards/application-flow';

/** An application knoc's kind and vendor (none for a passive allowlist), fixed by its stored config. */
export interface ApplicationKind {
  type: ApplicationType;
  vendor: Vendor | null;
}

/**
 * The kind and vendor of an application knoc (spec §4: "fixed from config when loaded"), or null for
 * the other knocs (Linux, proxy, script): an allowlist is passive (passive+ when it has a child), a
 * vendor backend names its vendor.
 */
export function applicationKindOfKnoc(knoc: KnocRecord): ApplicationKind | null {
  const backendType = BackendType.parse(knoc.BackendType);
  const vendor = VENDORS.find((candidate) => VENDOR_BACKEND_TYPE[candidate] === backendType) ?? null;
  if (backendType !== 'allowlist' && vendor === null) return null;
  const stored = knoc.AclConfig[backendType];
  const acl = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  return { type: applicationTypeOfConfig(backendType, acl, knoc.Children.length > 0), vendor };
}

const hasRange = (ranges: unknown) =>
  Array.isArray(ranges) && ranges.some((range) => typeof range === 'string' && range.trim() !== '');

/**
 * The update screen's Settings rules: the wizards' (a secret left empty keeps the stored one); an
 * allowlist read by address needs at least one address range; a PAN-OS knoc keeps the fields of its
 * kind (passive+ its EDLName, active its GroupName), as the application wizard asks.
 */
export function updateSettingsSchema(kind: ApplicationKind | null) {
  return settingsSchemaFor('update').superRefine((values: SettingsValues, ctx) => {
    if (
      values.Type === 'allowlist' &&
      values.Acl.AllowAccessByIp === true &&
      !hasRange(values.Acl.AllowedIpAddresses)
    ) {
      ctx.addIssue({ code: 'custom', path: ['Acl', 'AllowedIpAddresses'], message: ErrorCodes.ipRangeRequired });
    }
    if (values.Type === 'panos' && kind !== null) {
      for (const { path } of panosIssues({ ApplicationType: kind.type, Backend: values.Backend, Acl: values.Acl })) {
        ctx.addIssue({ code: 'custom', path, message: APPLICATION_SETTINGS_MESSAGES.required });
      }
    }
  });
}
