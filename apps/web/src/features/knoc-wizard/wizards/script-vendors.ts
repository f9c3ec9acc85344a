/**
 * The vendors of spec §9 that have no driver of their own (Juniper, Checkpoint, Digital Ocean,
 * PfSense, Mikrotik). Their knocs are script knocs: the agent runs a script named after the vendor.
 * The spec's product runs it from a temp path; Postern runs it from the agent's scripts directory,
 * the only place an agent runs scripts from (a temp directory is writable by anyone on the host).
 */
export const SCRIPT_VENDORS = ['juniper', 'checkpoint', 'digitalocean', 'pfsense', 'mikrotik'] as const;
export type ScriptVendor = (typeof SCRIPT_VENDORS)[number];

/** The search parameter of the script wizard's address that names the vendor (`?vendor=juniper`). */
export const SCRIPT_VENDOR_PARAM = 'vendor';

/** A vendor's script, in the agent's scripts directory. */
export function scriptVendorCommand(vendor: ScriptVendor): string {
  return `${vendor}.sh`;
}

/** The vendor a search parameter names, or null for none or one Postern does not know. */
export function scriptVendorOf(value: string | null): ScriptVendor | null {
  return SCRIPT_VENDORS.find((vendor) => vendor === value) ?? null;
}

/** The script wizard's address for a vendor. */
export function scriptVendorWizardPath(vendor: ScriptVendor): string {
  return `/admin/knocs/new/script?${SCRIPT_VENDOR_PARAM}=${vendor}`;
}
