import type { BackendType } from '@postern/protocol';

/**
 * The application wizard's rules as pure functions of the application type (spec §2 "Application
 * wizard", §3 kinds and vendors, §4 passive / passive+ / active), so the stepper is data over them
 * and every branch is a table test.
 */

/** passive: the firewall polls a published allowlist (about every 60 s); passive+: an agent tells
 * the firewall to refresh it; active: the agent drives the firewall's API at once. */
export const APPLICATION_TYPES = ['passive', 'passive+', 'active'] as const;
export type ApplicationType = (typeof APPLICATION_TYPES)[number];

/** The firewalls and clouds an application knoc can protect (spec §3 Vendors). */
export const VENDORS = [
  'fortinet',
  'fortimanager',
  'palo',
  'firepower',
  'sophosutm',
  'sophossfos',
  'aws',
  'azure',
] as const;
export type Vendor = (typeof VENDORS)[number];

/** The backend type that drives each vendor (fortinet is FortiOS, palo is PAN-OS). */
export const VENDOR_BACKEND_TYPE = {
  fortinet: 'fortios',
  fortimanager: 'fortimanager',
  palo: 'panos',
  firepower: 'firepower',
  sophosutm: 'sophosutm',
  sophossfos: 'sophossfos',
  aws: 'aws',
  azure: 'azure',
} as const satisfies Record<Vendor, BackendType>;
export type VendorBackendType = (typeof VENDOR_BACKEND_TYPE)[Vendor];

/** The only vendor whose firewall can be told to refresh an external list (an EDL). */
export const PASSIVE_PLUS_VENDOR: Vendor = 'palo';
/** The vendor an active knoc starts with. */
export const DEFAULT_ACTIVE_VENDOR: Vendor = 'fortinet';

/**
 * The steps in the spec's numbering: 1 settings, 2 Knoc options, 3.1 API key, 3.2 agent, 4 users
 * and groups, 5 review.
 */
export const APPLICATION_STEPS = ['settings', 'options', 'apiKey', 'agent', 'members', 'review'] as const;
export type ApplicationStep = (typeof APPLICATION_STEPS)[number];

/** Whether the knoc publishes an allowlist that an API key (or an address list) protects. */
export function usesApiKey(type: ApplicationType): boolean {
  return type === 'passive' || type === 'passive+';
}

/** Whether an agent drives a firewall: active, and the refresh of passive+. */
export function usesAgent(type: ApplicationType): boolean {
  return type === 'active' || type === 'passive+';
}

/** 3.1 is disabled for active, 3.2 for passive; the rest are always part of the way. */
export function isStepDisabled(step: ApplicationStep, type: ApplicationType): boolean {
  if (step === 'apiKey') return !usesApiKey(type);
  if (step === 'agent') return !usesAgent(type);
  return false;
}

/** The step after `step`; null after the review (which submits instead). */
export function nextStep(step: ApplicationStep, type: ApplicationType): ApplicationStep | null {
  switch (step) {
    case 'settings':
      return 'options';
    case 'options':
      return usesApiKey(type) ? 'apiKey' : 'agent';
    case 'apiKey':
      return type === 'passive+' ? 'agent' : 'members';
    case 'agent':
      return 'members';
    case 'members':
      return 'review';
    case 'review':
      return null;
  }
}

/** The step before `step`, mirroring nextStep; null on the first (Back leaves through history). */
export function previousStep(step: ApplicationStep, type: ApplicationType): ApplicationStep | null {
  switch (step) {
    case 'settings':
      return null;
    case 'options':
      return 'settings';
    case 'apiKey':
      return 'options';
    case 'agent':
      return type === 'active' ? 'options' : 'apiKey';
    case 'members':
      return type === 'passive' ? 'apiKey' : 'agent';
    case 'review':
      return 'members';
  }
}

/**
 * The vendor once the application type changes to `type` (spec §4): passive+ forces palo, active
 * starts at fortinet unless a knoc is being updated (its vendor is fixed by its config), passive
 * keeps whatever was chosen.
 */
export function vendorForType(type: ApplicationType, current: Vendor, updating = false): Vendor {
  if (type === 'passive+') return PASSIVE_PLUS_VENDOR;
  if (type === 'active' && !updating) return DEFAULT_ACTIVE_VENDOR;
  return current;
}

/** Whether the vendor select is locked: passive+ works with palo only. */
export function isVendorFixed(type: ApplicationType): boolean {
  return type === 'passive+';
}

/**
 * The type of the knoc's own backend: an allowlist for passive and passive+ (the firewall reads
 * the published list), the vendor's backend for active.
 */
export function knocBackendType(type: ApplicationType, vendor: Vendor): BackendType {
  return type === 'active' ? VENDOR_BACKEND_TYPE[vendor] : 'allowlist';
}

/**
 * The vendor backend whose fields the settings step asks for: none for passive (the firewall is
 * only told the list's address), PAN-OS for passive+'s refresh, the vendor's for active.
 */
export function vendorBackendType(type: ApplicationType, vendor: Vendor): VendorBackendType | null {
  if (type === 'passive') return null;
  return VENDOR_BACKEND_TYPE[type === 'passive+' ? PASSIVE_PLUS_VENDOR : vendor];
}

/** The backend type the chosen agent must be capable of (and version-compatible with); null: no agent. */
export function agentBackendType(type: ApplicationType, vendor: Vendor): VendorBackendType | null {
  return usesAgent(type) ? vendorBackendType(type, vendor) : null;
}

/**
 * The application type of a stored knoc (spec §3): an allowlist is passive (passive+ when it has a
 * child), panos is passive+ when its EDLName is set (the hidden child) else active, any other
 * vendor type is active.
 */
export function applicationTypeOfConfig(
  backendType: BackendType,
  aclFields: Readonly<Record<string, unknown>>,
  hasChildren = false,
): ApplicationType {
  if (backendType === 'allowlist') return hasChildren ? 'passive+' : 'passive';
  if (backendType === 'panos') {
    const edlName = aclFields.EDLName;
    return typeof edlName === 'string' && edlName !== '' ? 'passive+' : 'active';
  }
  return 'active';
}
