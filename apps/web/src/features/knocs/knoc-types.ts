import type { ApiKeyRecord, BackendType, KnocRecord } from '@postern/protocol';
import { shellQuote } from './shell-quote';

/*
 * What the knocs screen says about a knoc, by its backend type: the Details column, the
 * verification instructions of the detail dialog, the Edit target and the key a delete may leave
 * behind. Texts are translation keys with their values, so the rules are testable without React.
 */

/** A text to translate: a key under `knocsScreen` and its interpolation values. */
export interface TextRef {
  key: string;
  values?: Record<string, string>;
  /** A vendor backend the text names: its translated name (backendsScreen.types) goes in as `vendor`. */
  vendorType?: BackendType;
}

/** A command or value the admin can copy, with what it is. */
export interface CopyableStep {
  label: TextRef;
  value: string;
}

/** How an admin checks that grants arrive: what to do, and what to copy and run. */
export interface Verification {
  steps: TextRef[];
  commands: CopyableStep[];
}

/** The variables every script run gets (spec §3), before the knoc's own. */
export const SCRIPT_VARIABLES = ['knoc_action', 'knoc_aclname', 'knoc_username', 'knoc_cidr', 'knoc_ipaddr'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A config field as text: strings and numbers as they are, anything else empty. */
function text(fields: Record<string, unknown>, name: string): string {
  const value = fields[name];
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

/** The knoc's ACL config fields for its own backend type ({} when missing). */
export function aclFields(knoc: KnocRecord): Record<string, unknown> {
  const fields = knoc.AclConfig[knoc.BackendType];
  return isRecord(fields) ? fields : {};
}

/** The knoc's backend config fields (secrets as RECORDED; {} when missing). */
export function backendFields(knoc: KnocRecord): Record<string, unknown> {
  return knoc.BackendConfig[knoc.BackendType] ?? {};
}

/** The set names a Linux knoc (ipset or nftables) adds to, IPv4 first. */
export function ipsetNames(knoc: KnocRecord): string[] {
  const fields = aclFields(knoc);
  return [text(fields, 'V4SetName'), text(fields, 'V6SetName')].filter((name) => name !== '');
}

/** The nftables family and table of an nftables knoc's backend (the family defaults to inet). */
export function nftablesTable(knoc: KnocRecord): { family: string; table: string } {
  const backend = backendFields(knoc);
  return { family: text(backend, 'Family') || 'inet', table: text(backend, 'Table') };
}

/** A passive+ knoc: an allowlist whose hidden child knoc makes the firewall fetch it again. */
export function isPassivePlus(knoc: KnocRecord): boolean {
  return knoc.Children.length > 0;
}

/** The device object a vendor knoc puts granted addresses in, as shown in Details. */
function vendorObject(knoc: KnocRecord): string {
  const fields = aclFields(knoc);
  switch (knoc.BackendType) {
    case 'panos':
      return text(fields, 'EDLName') || text(fields, 'GroupName');
    case 'firepower':
      return text(fields, 'GroupUUID');
    case 'sophosutm':
      return text(fields, 'GroupReference');
    case 'sophossfos':
      return [text(fields, 'GroupName'), text(fields, 'GroupNameV6')].filter((name) => name !== '').join(', ');
    case 'azure':
      return text(fields, 'NsgName');
    case 'aws':
      return text(fields, 'SecurityGroupId');
    default:
      return text(fields, 'Name');
  }
}

/** The Details column: the set names, the proxy ACL, the vendor group, "allowlist" and so on. */
export function knocDetails(knoc: KnocRecord): TextRef {
  const acl = aclFields(knoc);
  const backend = backendFields(knoc);
  switch (knoc.BackendType) {
    case 'ipset':
      return { key: 'knocsScreen.details.ipset', values: { sets: ipsetNames(knoc).join(', ') } };
    case 'nftables':
      return {
        key: 'knocsScreen.details.nftables',
        values: { ...nftablesTable(knoc), sets: ipsetNames(knoc).join(', ') },
      };
    case 'allowlist':
      return {
        key: isPassivePlus(knoc) ? 'knocsScreen.details.allowlistPassivePlus' : 'knocsScreen.details.allowlist',
      };
    case 'haproxy':
      return { key: 'knocsScreen.details.haproxy', values: { id: text(acl, 'ID') } };
    case 'knocproxy':
      return {
        key: 'knocsScreen.details.knocproxy',
        values: { name: text(acl, 'Name'), address: text(backend, 'Address') },
      };
    case 'script':
      return { key: 'knocsScreen.details.script', values: { command: text(backend, 'Command') } };
    default:
      return {
        key: 'knocsScreen.details.vendor',
        values: { object: vendorObject(knoc) },
        vendorType: knoc.BackendType,
      };
  }
}

/** The public allowlist file of an allowlist knoc, on the server's own origin (spec §7). */
export function allowlistUrl(knoc: KnocRecord, origin: string): string {
  const token = text(aclFields(knoc), 'Token');
  return `${origin}/api/v1/allowlists/${encodeURIComponent(knoc.ID)}/${encodeURIComponent(token)}.txt`;
}

function allowlistVerification(knoc: KnocRecord, origin: string): Verification {
  const acl = aclFields(knoc);
  const url = allowlistUrl(knoc, origin);
  const byIp = acl.AllowAccessByIp === true;
  const addresses = Array.isArray(acl.AllowedIpAddresses) ? acl.AllowedIpAddresses.join(', ') : '';
  const steps: TextRef[] = [
    byIp
      ? { key: 'knocsScreen.verify.allowlist.byIp', values: { addresses } }
      : { key: 'knocsScreen.verify.allowlist.withKey' },
    { key: 'knocsScreen.verify.allowlist.lists' },
  ];
  if (isPassivePlus(knoc)) steps.push({ key: 'knocsScreen.verify.allowlist.passivePlus' });
  const request = byIp ? `curl ${shellQuote(url)}` : `curl -u 'apiuser:<API key>' ${shellQuote(url)}`;
  return {
    steps,
    commands: [
      { label: { key: 'knocsScreen.verify.allowlist.url' }, value: url },
      { label: { key: 'knocsScreen.verify.allowlist.request' }, value: request },
    ],
  };
}

/** `socat`'s address of a runtime socket: the path of a unix socket, TCP:host:port otherwise. */
function socatAddress(protocol: string, address: string): string {
  return protocol === 'tcp' ? `TCP:${address.replace(/^tcp:\/\//, '')}` : address;
}

function haproxyVerification(knoc: KnocRecord): Verification {
  const backend = backendFields(knoc);
  const id = text(aclFields(knoc), 'ID');
  const socket = text(backend, 'Address');
  const target = socatAddress(text(backend, 'Protocol'), socket);
  return {
    steps: [{ key: 'knocsScreen.verify.haproxy.intro', values: { id, socket } }],
    commands: [
      {
        label: { key: 'knocsScreen.verify.haproxy.read' },
        value: `echo ${shellQuote(`show acl #${id}`)} | socat stdio ${shellQuote(target)}`,
      },
    ],
  };
}

function knocproxyVerification(knoc: KnocRecord): Verification {
  const backend = backendFields(knoc);
  const address = text(backend, 'Address');
  const unix = text(backend, 'Protocol') === 'unix';
  return {
    steps: [
      { key: 'knocsScreen.verify.knocproxy.intro', values: { address, url: knoc.URL } },
      { key: 'knocsScreen.verify.knocproxy.check' },
    ],
    commands: [
      {
        label: { key: 'knocsScreen.verify.knocproxy.request' },
        value: unix ? `curl -i --unix-socket ${shellQuote(address)} http://localhost/` : `curl -ik https://${address}/`,
      },
    ],
  };
}

function ipsetVerification(knoc: KnocRecord): Verification {
  return {
    steps: [{ key: 'knocsScreen.verify.ipset.intro', values: { agent: knoc.AgentName } }],
    commands: ipsetNames(knoc).map((name) => ({
      label: { key: 'knocsScreen.verify.ipset.list', values: { name } },
      value: `ipset list ${shellQuote(name)}`,
    })),
  };
}

function nftablesVerification(knoc: KnocRecord): Verification {
  const { family, table } = nftablesTable(knoc);
  return {
    steps: [{ key: 'knocsScreen.verify.nftables.intro', values: { agent: knoc.AgentName, family, table } }],
    commands: ipsetNames(knoc).map((name) => ({
      label: { key: 'knocsScreen.verify.nftables.list', values: { name } },
      value: `nft list set ${shellQuote(family)} ${shellQuote(table)} ${shellQuote(name)}`,
    })),
  };
}

function scriptVerification(knoc: KnocRecord): Verification {
  const acl = aclFields(knoc);
  const command = text(backendFields(knoc), 'Command');
  // The agent falls back to the knoc's name when the config names no ACL.
  const aclName = text(acl, 'Name') || knoc.Description;
  const own: unknown[] = Array.isArray(acl.EnvVars) ? acl.EnvVars : [];
  const ownNames = own.flatMap((variable) => (isRecord(variable) ? [text(variable, 'Name')] : []));
  return {
    steps: [
      { key: 'knocsScreen.verify.script.intro', values: { agent: knoc.AgentName, command } },
      {
        key: 'knocsScreen.verify.script.variables',
        values: { variables: [...SCRIPT_VARIABLES, ...ownNames].join(', ') },
      },
    ],
    commands: [
      {
        label: { key: 'knocsScreen.verify.script.invocation' },
        value: `${shellQuote(command)} add ${shellQuote(aclName)} <address>`,
      },
    ],
  };
}

function vendorVerification(knoc: KnocRecord): Verification {
  const object = vendorObject(knoc);
  const passivePlus = knoc.BackendType === 'panos' && text(aclFields(knoc), 'EDLName') !== '';
  return {
    steps: [
      {
        key: passivePlus ? 'knocsScreen.verify.vendor.edl' : `knocsScreen.verify.vendor.${knoc.BackendType}`,
        values: { object },
        vendorType: knoc.BackendType,
      },
    ],
    commands: object === '' ? [] : [{ label: { key: 'knocsScreen.verify.vendor.object' }, value: object }],
  };
}

/** The detail dialog's instructions for checking that this knoc's grants reach its backend. */
export function verification(knoc: KnocRecord, origin: string): Verification {
  switch (knoc.BackendType) {
    case 'allowlist':
      return allowlistVerification(knoc, origin);
    case 'haproxy':
      return haproxyVerification(knoc);
    case 'knocproxy':
      return knocproxyVerification(knoc);
    case 'ipset':
      return ipsetVerification(knoc);
    case 'nftables':
      return nftablesVerification(knoc);
    case 'script':
      return scriptVerification(knoc);
    default:
      return vendorVerification(knoc);
  }
}

/** The id the update screen opens: a passive+ knoc is edited through its hidden child firewall knoc. */
export function editTargetId(knoc: KnocRecord): string {
  return knoc.Children[0] ?? knoc.ID;
}

/**
 * The API key a deleted allowlist knoc may leave behind: its key when that key had one scope or
 * fewer (it read only this allowlist), so deleting it loses nothing else. Null otherwise.
 */
export function keyLeftBehind(knoc: KnocRecord, keys: readonly ApiKeyRecord[]): ApiKeyRecord | null {
  if (knoc.BackendType !== 'allowlist') return null;
  const keyId = text(aclFields(knoc), 'ApiKeyId');
  const key = keyId === '' ? undefined : keys.find((candidate) => candidate.ID === keyId);
  return key !== undefined && key.Scopes.length <= 1 ? key : null;
}

/** The knocs the list shows: never those hidden from admins (passive+ children). */
export function listedKnocs(knocs: readonly KnocRecord[]): KnocRecord[] {
  return knocs.filter((knoc) => !knoc.HideFromAdmins);
}
