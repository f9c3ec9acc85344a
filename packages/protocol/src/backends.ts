import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { ErrorCodes } from './errors.js';
import { HostNameOrAddress, HttpUrl, Id, NO_CONTROL_CHARACTERS, RequiredName } from './common.js';
import { isHostOrAddress } from './endpoint.js';
import { oneOfTypes } from './one-of-types.js';
import {
  WEBHOOK_SECRET_MIN_LENGTH,
  WEBHOOK_URL_PROBLEM_CODES,
  isWebhookCommand,
  webhookUrlProblem,
} from './script-webhook.js';

/** Written in place of a stored secret when a backend or knoc is read back. */
export const RECORDED = 'RECORDED';

export const BACKEND_TYPES = [
  'ipset',
  'nftables',
  'allowlist',
  'haproxy',
  'knocproxy',
  'script',
  'fortios',
  'fortimanager',
  'panos',
  'firepower',
  'sophosutm',
  'sophossfos',
  'aws',
  'azure',
] as const;
export const BackendType = z.enum(BACKEND_TYPES);
export type BackendType = z.infer<typeof BackendType>;

/** Vendor backends are stored and validated now; their agent drivers come later. */
export const VENDOR_BACKEND_TYPES: readonly BackendType[] = [
  'fortios',
  'fortimanager',
  'panos',
  'firepower',
  'sophosutm',
  'sophossfos',
  'aws',
  'azure',
];

/** Minimum agent version per backend type (the spec: 1.9.0 for Sophos, 1.6.0 otherwise). */
export function minimumAgentVersion(type: BackendType): string {
  return type === 'sophosutm' || type === 'sophossfos' ? '1.9.0' : '1.6.0';
}

/** The fields of each type that are secrets: encrypted at rest, read back as RECORDED. */
export const BACKEND_SECRET_FIELDS: Readonly<Record<BackendType, readonly string[]>> = {
  ipset: [],
  nftables: [],
  allowlist: [],
  haproxy: [],
  knocproxy: [],
  script: ['WebhookSecret'],
  fortios: ['Bearer'],
  fortimanager: ['ApiKey'],
  panos: ['ApiKey'],
  firepower: ['Password'],
  sophosutm: ['ApiKey'],
  sophossfos: ['Password'],
  aws: ['SecretAccessKey'],
  azure: ['ClientSecret'],
};

/** The field naming where a vendor lives; changing it without re-entering the secrets is refused. */
export const BACKEND_ADDRESS_FIELD: Readonly<Partial<Record<BackendType, string>>> = {
  // A webhook's URL: its secret signs for that receiver, and sensitive values go there.
  script: 'Command',
  fortios: 'Url',
  fortimanager: 'Hostname',
  panos: 'Hostname',
  firepower: 'Hostname',
  sophosutm: 'Hostname',
  sophossfos: 'Hostname',
};

const text = () => z.string().trim().min(1).max(1024);
/** A secret: required on create; on update omitted or RECORDED keeps the stored value. */
const secret = () => z.string().min(1).max(4096);
/** On update: a new secret, or RECORDED / omitted to keep the stored one. */
const secretOrRecorded = () => z.string().max(4096);
/**
 * AWS: the access key ID and its secret, or neither: with both empty the agent uses its host's
 * standard credential chain (environment, shared credentials file, the EC2 instance role).
 */
const awsFields = z.object({
  AccessKeyId: z.string().trim().max(1024).default(''),
  SecretAccessKey: z.string().max(4096).default(''),
  Region: text(),
});

/**
 * The AWS keys come as a pair (err.awsKeysIncomplete on the empty one). On update a secret left
 * empty or RECORDED is the stored one, so only a new secret without a key ID is refused here; the
 * server checks the pair again once the stored secret is merged in.
 */
function awsKeysPaired(mode: 'create' | 'update') {
  return (value: { AccessKeyId: string; SecretAccessKey?: string | undefined }, ctx: z.RefinementCtx) => {
    const keyId = value.AccessKeyId !== '';
    const secret = value.SecretAccessKey ?? '';
    const secretSent = secret !== '' && (mode === 'create' || secret !== RECORDED);
    const issue = (field: string) =>
      ctx.addIssue({ code: 'custom', path: [field], message: ErrorCodes.awsKeysIncomplete });
    if (mode === 'create' && keyId && !secretSent) issue('SecretAccessKey');
    if (!keyId && secretSent) issue('AccessKeyId');
  };
}

/** Where a vendor's API lives: a host name or IP address, optionally with :port (see endpoint.ts). */
const hostname = () => HostNameOrAddress;
const insecure = () => z.boolean().default(false);

export const HAPROXY_DEFAULT_UNIX_SOCKET = '/var/run/haproxy.sock';
export const HAPROXY_DEFAULT_TCP_PORT = 9999;

/** haproxy: the runtime API socket. knocproxy: where the agent's proxy listens. */
const socketConfig = z.object({ Protocol: z.enum(['unix', 'tcp']), Address: text() }).superRefine((value, ctx) => {
  // A path goes to the agent as one argument, but a newline or NUL in it is never a real socket.
  if (value.Protocol === 'unix' && (!value.Address.startsWith('/') || !NO_CONTROL_CHARACTERS.test(value.Address))) {
    ctx.addIssue({ code: 'custom', path: ['Address'], message: ErrorCodes.invalidAddress });
  }
  if (value.Protocol === 'tcp' && !isHostOrAddress(value.Address, 'required')) {
    ctx.addIssue({ code: 'custom', path: ['Address'], message: ErrorCodes.invalidAddress });
  }
});

/** A script variable's declaration on the backend: its value lives on each knoc. */
export const BackendEnvVar = z.object({
  Name: z
    .string()
    .trim()
    .min(1, ErrorCodes.emptyEnvVarName)
    .max(128)
    .refine((name) => !name.includes('='), ErrorCodes.invalidEnvVarName),
  Sensitive: z.boolean().default(false),
});

/**
 * A script backend: a program, or in webhook mode an https URL (see script-webhook.ts) with the
 * secret its calls are signed with. Variable names are unique: each is one environment variable.
 */
const scriptFields = z.object({
  /** A program in the agent's scripts directory (a bare name or a path inside it), or a webhook URL. */
  Command: text(),
  EnvVars: z
    .array(BackendEnvVar)
    .max(100)
    .default([])
    .superRefine((vars, ctx) => {
      // On the later row's name, where the forms show it too.
      const seen = new Set<string>();
      vars.forEach((variable, index) => {
        if (seen.has(variable.Name)) {
          ctx.addIssue({ code: 'custom', path: [index, 'Name'], message: ErrorCodes.repeatedEnvVarNames });
        }
        seen.add(variable.Name);
      });
    }),
  /** Webhook mode: the HMAC-SHA256 key of the X-Postern-Signature header; unused for a program. */
  WebhookSecret: z.string().max(4096).default(''),
});

/**
 * A webhook Command must be a URL the agent accepts, and needs a secret. On update a WebhookSecret
 * left empty or RECORDED is the stored one, which the server checks once it is merged in.
 */
function scriptRules(mode: 'create' | 'update') {
  return (value: { Command: string; WebhookSecret?: string | undefined }, ctx: z.RefinementCtx) => {
    if (!isWebhookCommand(value.Command)) return;
    const problem = webhookUrlProblem(value.Command);
    if (problem !== null) {
      ctx.addIssue({ code: 'custom', path: ['Command'], message: WEBHOOK_URL_PROBLEM_CODES[problem] });
    }
    const secret = value.WebhookSecret ?? '';
    const keepsStored = mode === 'update' && (secret === '' || secret === RECORDED);
    if (!keepsStored && secret.length < WEBHOOK_SECRET_MIN_LENGTH) {
      ctx.addIssue({ code: 'custom', path: ['WebhookSecret'], message: ErrorCodes.webhookSecretRequired });
    }
  };
}

/**
 * Cisco FMC network groups need a deployment before a change reaches the firewalls, and a deployment
 * pushes every change waiting on a device, other admins' unfinished edits included. `automatic`
 * deploys the devices holding Postern's change (with whatever else waits on them); `onlyWhenOnlyPostern`
 * deploys a device only when every change waiting on it is Postern's; `manual` never deploys (an
 * admin does). Dynamic objects need no deployment, so the setting does not apply to them.
 */
export const FIREPOWER_DEPLOY_MODES = ['automatic', 'onlyWhenOnlyPostern', 'manual'] as const;
export type FirepowerDeployMode = (typeof FIREPOWER_DEPLOY_MODES)[number];

/** The nftables families a set may live in: `inet` holds both IPv4 and IPv6 sets in one table. */
export const NFTABLES_FAMILIES = ['inet', 'ip', 'ip6'] as const;
export type NftablesFamily = (typeof NFTABLES_FAMILIES)[number];

/**
 * An nftables table, chain or set name as Postern writes it: a letter, then letters, digits, `_`
 * or `-`, at most 64 (nft allows more, but quoting rules differ between versions; these never need it).
 */
export const NFTABLES_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const nftablesName = () => z.string().trim().regex(NFTABLES_NAME_PATTERN, ErrorCodes.nftablesInvalidName);

/** Ports a managed rule covers: TCP destination ports, 1–65535, at most 32. */
export const MANAGED_RULE_MAX_PORTS = 32;

/**
 * `ManagedRule` on an ipset or nftables backend (off when absent): the agent owns the filter rule
 * that consults the knoc's sets for these ports in `Chain`, placing the drop of non-members before
 * the chain's accept of established connections, so a connection stops when its address leaves the
 * set (expiry in the kernel, with no Postern process alive); on revoke it also deletes the
 * address's conntrack entries for the ports. `Chain`: an iptables chain (ipset; `INPUT`,
 * `FORWARD` or one of the admin's) or a chain in the backend's table (nftables).
 */
export const ManagedRule = z.object({
  Chain: z.string().trim().regex(NFTABLES_NAME_PATTERN, ErrorCodes.managedRuleInvalidChain),
  Ports: z
    .array(z.number().int().min(1).max(65_535))
    .min(1, ErrorCodes.managedRulePortsRequired)
    .max(MANAGED_RULE_MAX_PORTS),
});
export type ManagedRule = z.infer<typeof ManagedRule>;

/** Each backend type's configuration, by the spec's table. */
export const BACKEND_CONFIG_SCHEMAS = {
  ipset: z.object({ ManagedRule: ManagedRule.optional() }),
  /** Sets in `Table` of `Family` (the knocs name them); the agent creates neither table nor sets. */
  nftables: z.object({
    Family: z.enum(NFTABLES_FAMILIES).default('inet'),
    Table: nftablesName(),
    ManagedRule: ManagedRule.optional(),
  }),
  allowlist: z.object({}),
  haproxy: socketConfig,
  knocproxy: socketConfig,
  script: scriptFields.superRefine(scriptRules('create')),
  fortios: z.object({
    Url: HttpUrl,
    Insecure: insecure(),
    Bearer: secret(),
    Prefix: z.string().trim().max(32).default('kk_'),
    VDOM: z.string().trim().max(64).default(''),
  }),
  fortimanager: z.object({ Hostname: hostname(), Insecure: insecure(), ApiKey: secret() }),
  panos: z.object({
    Hostname: hostname(),
    Insecure: insecure(),
    ApiKey: secret(),
    VSys: z.string().trim().min(1).max(64).default('vsys1'),
    DeviceGroup: z.string().trim().max(64).default(''),
    MapUser: z.boolean().default(false),
  }),
  firepower: z.object({
    Hostname: hostname(),
    Insecure: insecure(),
    Username: text(),
    Password: secret(),
    /** The FMC domain to work in, by name (`Global/Branch`) or UUID; empty: the login's default domain. */
    Domain: z.string().trim().max(256).default(''),
    /** Network-group mode: whether and when the agent deploys its change (see FIREPOWER_DEPLOY_MODES). */
    Deploy: z.enum(FIREPOWER_DEPLOY_MODES).default('automatic'),
  }),
  sophosutm: z.object({ Hostname: hostname(), Insecure: insecure(), ApiKey: secret() }),
  sophossfos: z.object({ Hostname: hostname(), Insecure: insecure(), Username: text(), Password: secret() }),
  aws: awsFields.superRefine(awsKeysPaired('create')),
  azure: z.object({ ClientId: text(), ClientSecret: secret(), TenantId: text(), NoCache: z.boolean().default(false) }),
} as const satisfies Record<BackendType, z.ZodType>;

/**
 * A backend type's fields as sent: on create every rule of the type; on update a secret may also be
 * omitted, empty or RECORDED, which keeps the stored value (the forms and the server share this).
 */
export function backendFieldsSchema(type: BackendType, mode: 'create' | 'update'): z.ZodType {
  const schema = BACKEND_CONFIG_SCHEMAS[type];
  const secrets = BACKEND_SECRET_FIELDS[type];
  if (mode === 'create' || secrets.length === 0) return schema;
  if (type === 'aws') {
    return awsFields.extend({ SecretAccessKey: secretOrRecorded().optional() }).superRefine(awsKeysPaired('update'));
  }
  if (type === 'script') {
    return scriptFields.extend({ WebhookSecret: secretOrRecorded().optional() }).superRefine(scriptRules('update'));
  }
  const object = schema as z.ZodObject;
  const optional = Object.fromEntries(secrets.map((field) => [field, secretOrRecorded().optional()]));
  return object.extend(optional);
}

/**
 * A backend's Config: an object with exactly one key, naming the type, whose value is that type's
 * fields. Parsing returns `{ type, fields }` so code never has to find the key again.
 */
function backendConfig(mode: 'create' | 'update') {
  return oneOfTypes(BackendType, (type) => backendFieldsSchema(type, mode), ErrorCodes.backendConfigOneType, [], {
    fortios: ErrorCodes.invalidFortinetConfig,
  });
}

export const BackendConfig = backendConfig('create');
/** As BackendConfig, but secrets may be omitted or RECORDED (kept as stored). */
export const BackendConfigUpdate = backendConfig('update');
export type BackendConfig = z.output<typeof BackendConfig>;

export const BackendRecord = z.object({
  ID: Id,
  Name: z.string(),
  /** NO_AGENT_ID when the backend has no agent (allowlist). */
  AgentID: Id,
  AgentName: z.string(),
  Type: BackendType,
  /** `{ <type>: { …fields } }` with every secret written as RECORDED. */
  Config: z.record(z.string(), z.record(z.string(), z.unknown())),
  LastModifiedAt: z.string(),
  LastModifiedBy: z.string(),
});
export type BackendRecord = z.infer<typeof BackendRecord>;
export const BackendResponse = dataEnvelope(BackendRecord);
export const BackendListResponse = dataEnvelope(z.array(BackendRecord));

const backendFields = {
  Name: RequiredName,
  /** Required for every type but allowlist; NO_AGENT_ID, null or omitted mean none. */
  AgentID: Id.nullable().optional(),
};

/** POST /api/admin/backends */
export const BackendCreateBody = z.object({ ...backendFields, Config: BackendConfig });
export type BackendCreateBody = z.infer<typeof BackendCreateBody>;

/** PUT /api/admin/backends/{id}: the type is fixed; secrets omitted or RECORDED are kept. */
export const BackendUpdateBody = z.object({ ...backendFields, ID: Id, Config: BackendConfigUpdate });
export type BackendUpdateBody = z.infer<typeof BackendUpdateBody>;
