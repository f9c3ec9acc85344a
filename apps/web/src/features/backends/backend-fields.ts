import type { z } from 'zod';
import {
  FIREPOWER_DEPLOY_MODES,
  NFTABLES_FAMILIES,
  type BACKEND_CONFIG_SCHEMAS,
  type BackendType,
} from '@postern/protocol';

/**
 * How one config field is entered. `secret` is a password input that, when editing, starts empty
 * with the placeholder RECORDED and keeps the stored value unless something is typed;
 * `envVarDeclarations` is the script backend's list of variable names with their Sensitive flag;
 * `envVarValues` a script knoc's values for them; `ipsetName` a set the chosen agent reported;
 * `nftablesSetName` an nftables set the agent reported in the backend's table; `managedRule` the
 * optional "end live connections" rule of an ipset or nftables backend (a chain and TCP ports);
 * `managedElsewhere` a field no config form shows (the server makes it, or a wizard step asks it).
 */
export type ConfigFieldKind =
  | 'text'
  | 'url'
  | 'hostname'
  | 'secret'
  | 'checkbox'
  | 'select'
  | 'number'
  | 'envVarDeclarations'
  | 'envVarValues'
  | 'ipsetName'
  | 'nftablesSetName'
  | 'managedRule'
  | 'managedElsewhere';

/** One field of a backend or knoc (ACL) config form. */
export interface ConfigFieldDescriptor {
  kind: ConfigFieldKind;
  /** Marked required in the form (a secret only when creating); the schema is what enforces it. */
  required?: boolean;
  /** The choices of a `select`, as sent (their labels are translated under `options.<value>`). */
  options?: readonly string[];
  /** For `ipsetName`: the address family whose sets the agent reported. */
  family?: 'inet' | 'inet6';
  /** For `nftablesSetName`: the element type of the sets offered. */
  setType?: 'ipv4_addr' | 'ipv6_addr';
  /** An example shown in the empty field. */
  placeholder?: string;
  /** The text key of a hint shown under the field. */
  description?: string;
  /** Digits only: a numeric keyboard on phones. */
  numeric?: boolean;
}

/**
 * Descriptors for every field of a schema's input: `-?` makes fields with defaults required here
 * too, so a field the protocol adds is a compile error until the form knows it.
 */
export type FieldsOf<Schema extends z.ZodType> = { readonly [Field in keyof z.input<Schema>]-?: ConfigFieldDescriptor };

const insecure: ConfigFieldDescriptor = { kind: 'checkbox' };
const hostname: ConfigFieldDescriptor = { kind: 'hostname', required: true, placeholder: 'firewall.example.com' };
const socket = {
  Protocol: { kind: 'select', required: true, options: ['unix', 'tcp'] },
  Address: { kind: 'text', required: true },
} as const satisfies Record<string, ConfigFieldDescriptor>;

/** Off unless switched on; the chain is an iptables chain (ipset) or one of the table's (nftables). */
const managedRule = (chainExample: string, chainHint: string): ConfigFieldDescriptor => ({
  kind: 'managedRule',
  placeholder: chainExample,
  description: chainHint,
});

/** The fields of each backend type's config, in the order the form shows them (spec §3 table). */
export const BACKEND_FIELDS = {
  ipset: { ManagedRule: managedRule('INPUT', 'backendsScreen.managedRule.chainHint.ipset') },
  // The agent creates neither the table nor its sets: they are the admin's, with `flags timeout`.
  nftables: {
    Family: { kind: 'select', required: true, options: NFTABLES_FAMILIES },
    Table: {
      kind: 'text',
      required: true,
      placeholder: 'postern',
      description: 'backendsScreen.descriptions.nftablesTable',
    },
    ManagedRule: managedRule('input', 'backendsScreen.managedRule.chainHint.nftables'),
  },
  allowlist: {},
  haproxy: socket,
  knocproxy: socket,
  script: {
    Command: {
      kind: 'text',
      required: true,
      placeholder: 'notify.sh',
      description: 'backendsScreen.descriptions.scriptCommand',
    },
    // Webhook mode only: the key of the X-Postern-Signature header (docs/agents.md).
    WebhookSecret: { kind: 'secret', description: 'backendsScreen.descriptions.webhookSecret' },
    EnvVars: { kind: 'envVarDeclarations' },
  },
  fortios: {
    Url: { kind: 'url', required: true, placeholder: 'https://fortigate.example.com' },
    Insecure: insecure,
    Bearer: { kind: 'secret', required: true },
    Prefix: { kind: 'text' },
    VDOM: { kind: 'text' },
  },
  fortimanager: { Hostname: hostname, Insecure: insecure, ApiKey: { kind: 'secret', required: true } },
  panos: {
    Hostname: hostname,
    Insecure: insecure,
    ApiKey: { kind: 'secret', required: true },
    VSys: { kind: 'text', required: true },
    DeviceGroup: { kind: 'text' },
    MapUser: { kind: 'checkbox' },
  },
  firepower: {
    Hostname: hostname,
    Insecure: insecure,
    Username: { kind: 'text', required: true },
    Password: { kind: 'secret', required: true },
    Domain: { kind: 'text', placeholder: 'Global', description: 'backendsScreen.descriptions.firepowerDomain' },
    Deploy: {
      kind: 'select',
      required: true,
      options: FIREPOWER_DEPLOY_MODES,
      description: 'backendsScreen.descriptions.firepowerDeploy',
    },
  },
  sophosutm: { Hostname: hostname, Insecure: insecure, ApiKey: { kind: 'secret', required: true } },
  sophossfos: {
    Hostname: hostname,
    Insecure: insecure,
    Username: { kind: 'text', required: true },
    Password: { kind: 'secret', required: true },
  },
  aws: {
    // Both empty: the agent uses its host's AWS credentials (the EC2 instance role).
    AccessKeyId: { kind: 'text', description: 'backendsScreen.descriptions.awsHostCredentials' },
    SecretAccessKey: { kind: 'secret' },
    Region: { kind: 'text', required: true, placeholder: 'eu-central-1' },
  },
  azure: {
    ClientId: { kind: 'text', required: true },
    ClientSecret: { kind: 'secret', required: true },
    TenantId: { kind: 'text', required: true },
    NoCache: { kind: 'checkbox' },
  },
} as const satisfies { readonly [Type in BackendType]: FieldsOf<(typeof BACKEND_CONFIG_SCHEMAS)[Type]> };

/** A field's name and descriptor, in form order. */
export type ConfigFieldEntry = readonly [field: string, descriptor: ConfigFieldDescriptor];

/** The backend fields of a type, in form order. */
export function backendFieldEntries(type: BackendType): ConfigFieldEntry[] {
  return Object.entries(BACKEND_FIELDS[type]);
}

/** The text key of a backend field's label. */
export function backendFieldLabelKey(type: BackendType, field: string): string {
  return `backendsScreen.fields.${type}.${field}`;
}
