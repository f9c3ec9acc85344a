import path from 'node:path';
import { z } from 'zod';
import { AGENT_TOKEN_MIN_LENGTH, NFTABLES_FAMILIES, NFTABLES_NAME_PATTERN } from '@postern/protocol';

/** pino's levels, quietest last; `silent` turns logging off. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The protocol's minimum token length, re-exported for the settings table. */
const TOKEN_MIN_LENGTH = AGENT_TOKEN_MIN_LENGTH;

/** ipset's own limit: set names are at most 31 characters. */
const IPSET_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,31}$/;

/** Where HAProxy's runtime API listens. */
export type HaproxySocket = { kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number };

/** What parsing a value needs to know about where it came from. */
export interface ParseContext {
  /** Relative paths resolve against this: the config file's directory, or the working directory. */
  baseDir: string;
}

/** One setting: its names in each source, its default, its help line and how to parse a value. */
export interface SettingDefinition<T> {
  /** Environment variable. */
  env: string;
  /** Command-line flag, for the few settings that have one. */
  flag?: string;
  /** Default, written as an operator would write it and parsed like any other value. */
  default?: string;
  /** What a valid value looks like, completing "<setting>: …" in an error. */
  expect: string;
  /** One line for `--help`. */
  help: string;
  /** Never echo the value back in an error. */
  secret?: boolean;
  schema: (ctx: ParseContext) => z.ZodType<T>;
}

function setting<T>(definition: SettingDefinition<T>): SettingDefinition<T> {
  return definition;
}

const text = () => z.string().trim().min(1);

/**
 * The EC2 endpoint override: https only (SigV4 signatures and keys must not cross plain HTTP), no
 * credentials, query or fragment; an empty value means the regional default. Loopback may use http,
 * for a local test endpoint.
 */
const awsEndpoint = () =>
  z
    .string()
    .trim()
    .refine((value) => value === '' || isAwsEndpoint(value))
    .transform((value) => (value === '' ? null : value.replace(/\/+$/, '')));

function isAwsEndpoint(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
  return secure && url.username === '' && url.password === '' && url.search === '' && url.hash === '';
}

const filePath = (ctx: ParseContext) => text().transform((value) => path.resolve(ctx.baseDir, value));

// Environment variables and flags are strings; the JSON file may also use real booleans.
const BOOLEAN_WORDS = new Map([
  ['true', true],
  ['yes', true],
  ['1', true],
  ['false', false],
  ['no', false],
  ['0', false],
]);
const booleanValue = () =>
  z.union([
    z.boolean(),
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((word) => BOOLEAN_WORDS.has(word))
      .transform((word) => BOOLEAN_WORDS.get(word) === true),
  ]);

const integerIn = (min: number, max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .trim()
        .regex(/^[+-]?\d+$/)
        .transform(Number),
    ])
    .pipe(z.number().int().min(min).max(max));

const SERVER_URL_SCHEMES = new Set(['https:', 'http:', 'wss:', 'ws:']);

const serverUrl = () =>
  z.string().transform((value, ctx) => {
    const url = URL.canParse(value.trim()) ? new URL(value.trim()) : null;
    // Checked first, and never echoed: credentials or a query could hold a secret. Credentials in a
    // URL also end up in logs and process listings; the agent authenticates with its token.
    if (url !== null && (url.username !== '' || url.password !== '')) {
      ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password; the agent uses its token' });
      return z.NEVER;
    }
    if (url !== null && (url.search !== '' || url.hash !== '')) {
      ctx.addIssue({ code: 'custom', message: 'must not have a query (?…) or fragment (#…)' });
      return z.NEVER;
    }
    if (url === null || !SERVER_URL_SCHEMES.has(url.protocol) || url.hostname === '') {
      ctx.addIssue({ code: 'custom', input: value });
      return z.NEVER;
    }
    // Keep a path prefix (a server published under /postern) but not a trailing slash.
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  });

const token = () =>
  z
    .string()
    .min(TOKEN_MIN_LENGTH)
    .refine((value) => !/\s/.test(value));

/** Whether a token read from a file follows the same rule as one given directly. */
export function isWellFormedToken(value: string): boolean {
  return token().safeParse(value).success;
}

const ipsetNames = () =>
  z.union([z.array(z.string()), z.string().transform((value) => value.split(','))]).transform((names, ctx) => {
    const cleaned = [...new Set(names.map((name) => name.trim()).filter((name) => name !== ''))];
    const invalid = cleaned.find((name) => !IPSET_NAME_PATTERN.test(name));
    if (invalid !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${invalid}" is not an ipset name (1 to 31 of A-Z a-z 0-9 _ . : -)`,
      });
      return z.NEVER;
    }
    return cleaned;
  });

/**
 * nftables sets as `family/table/set` (`inet/postern/allow4`): a set's name is only unique within its
 * table, and nft's own spelling (`inet postern allow4`) would need quoting in an environment file.
 */
const nftablesSets = () =>
  z.union([z.array(z.string()), z.string().transform((value) => value.split(','))]).transform((sets, ctx) => {
    const cleaned = [...new Set(sets.map((set) => set.trim()).filter((set) => set !== ''))];
    const invalid = cleaned.find((set) => !isNftablesSetKey(set));
    if (invalid !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `"${invalid}" is not an nftables set as family/table/set (family inet, ip or ip6; table and set: a letter, then up to 63 letters, digits, _ or -)`,
      });
      return z.NEVER;
    }
    return cleaned;
  });

function isNftablesSetKey(value: string): boolean {
  const [family, table, name, ...rest] = value.split('/');
  return (
    rest.length === 0 &&
    (NFTABLES_FAMILIES as readonly string[]).includes(family ?? '') &&
    NFTABLES_NAME_PATTERN.test(table ?? '') &&
    NFTABLES_NAME_PATTERN.test(name ?? '')
  );
}

const haproxySocket = () =>
  z.string().transform((raw, ctx): HaproxySocket => {
    const value = raw.trim();
    if (value.startsWith('tcp://')) {
      const url = URL.canParse(value) ? new URL(value) : null;
      const port = url === null || url.port === '' ? Number.NaN : Number(url.port);
      if (url !== null && url.hostname !== '' && port >= 1 && (url.pathname === '' || url.pathname === '/')) {
        return { kind: 'tcp', host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
      }
    } else if (path.isAbsolute(value)) {
      return { kind: 'unix', path: path.normalize(value) };
    }
    ctx.addIssue({ code: 'custom', input: raw });
    return z.NEVER;
  });

/** An Azure cloud's endpoint (authority or Resource Manager): an http(s) URL, kept without a trailing slash. */
const azureEndpoint = () =>
  z.string().transform((value, ctx) => {
    const url = URL.canParse(value.trim()) ? new URL(value.trim()) : null;
    if (
      url === null ||
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.hostname === '' ||
      url.username !== '' ||
      url.password !== '' ||
      url.search !== '' ||
      url.hash !== ''
    ) {
      ctx.addIssue({ code: 'custom' });
      return z.NEVER;
    }
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  });

/**
 * "off", or a loopback address and port for the metrics listener: 127.0.0.1:9465, [::1]:9465 or
 * localhost:9465. The agent's metrics have no token, so only this host may read them.
 */
const metricsListen = () =>
  z.string().transform((raw, ctx): { host: string; port: number } | null => {
    const value = raw.trim();
    if (value.toLowerCase() === 'off' || value === '') return null;
    const match = /^(?:\[(::1)\]|(127(?:\.\d{1,3}){3}|localhost)):(\d{1,5})$/.exec(value);
    const port = Number(match?.[3]);
    if (match === null || port < 1 || port > 65535) {
      ctx.addIssue({ code: 'custom', input: raw });
      return z.NEVER;
    }
    return { host: match[1] ?? match[2] ?? '127.0.0.1', port };
  });

/**
 * Every setting, keyed by its dotted name in the JSON config file. Sources override each other in
 * the order config file < environment < flags; a value's default applies when no source gives one.
 */
export const SETTINGS = {
  serverUrl: setting({
    env: 'POSTERN_AGENT_SERVER_URL',
    flag: '--server-url',
    expect: 'must be an https:// or http:// URL',
    help: 'Postern server (https://, http://, wss:// or ws://); the agent connects to <serverUrl>/api/agent/v1/connect',
    schema: serverUrl,
  }),
  token: setting({
    env: 'POSTERN_AGENT_TOKEN',
    expect: `must be at least ${TOKEN_MIN_LENGTH} characters with no whitespace`,
    help: 'agent token from the admin console; give token or tokenFile, not both',
    secret: true,
    schema: token,
  }),
  tokenFile: setting({
    env: 'POSTERN_AGENT_TOKEN_FILE',
    flag: '--token-file',
    expect: 'must be a file path',
    help: 'file holding the token; must not be readable by group or others (chmod 600)',
    schema: filePath,
  }),
  stateFile: setting({
    env: 'POSTERN_AGENT_STATE_FILE',
    flag: '--state-file',
    default: '/var/lib/postern-agent/state.json',
    expect: 'must be a file path',
    help: 'where the agent remembers applied grants; its directory is created with mode 700',
    schema: filePath,
  }),
  keyFile: setting({
    env: 'POSTERN_AGENT_KEY_FILE',
    flag: '--key-file',
    expect: 'must be a file path',
    help: 'the agent key (Ed25519, PEM, mode 600), made on the first run; the server knows the agent by it, so keep it across reinstalls',
    schema: filePath,
  }),
  caFile: setting({
    env: 'POSTERN_AGENT_CA_FILE',
    expect: 'must be a file path',
    help: 'PEM certificate(s) to trust for the server, in addition to the system store',
    schema: filePath,
  }),
  insecureSkipVerify: setting({
    env: 'POSTERN_AGENT_INSECURE_SKIP_VERIFY',
    default: 'false',
    expect: 'must be true or false (or yes/no, 1/0)',
    help: 'accept any server certificate; for testing only',
    schema: booleanValue,
  }),
  'scripts.enabled': setting({
    env: 'POSTERN_AGENT_SCRIPTS_ENABLED',
    default: 'false',
    expect: 'must be true or false (or yes/no, 1/0)',
    help: 'allow script backends to run programs from scripts.directory',
    schema: booleanValue,
  }),
  'scripts.directory': setting({
    env: 'POSTERN_AGENT_SCRIPTS_DIR',
    default: '/etc/postern-agent/scripts',
    expect: 'must be a directory path',
    help: 'the only directory scripts run from; must not be writable by group or others',
    schema: filePath,
  }),
  'scripts.timeoutSeconds': setting({
    env: 'POSTERN_AGENT_SCRIPTS_TIMEOUT',
    default: '30',
    expect: 'must be a whole number of seconds from 1 to 600',
    help: 'a script still running after this long is killed',
    schema: () => integerIn(1, 600),
  }),
  'ipset.allowedSets': setting({
    env: 'POSTERN_AGENT_IPSET_ALLOWED_SETS',
    default: '',
    expect: 'must be a list of ipset names',
    help: 'comma-separated ipset names this agent may change; empty: none',
    schema: ipsetNames,
  }),
  'ipset.useSudo': setting({
    env: 'POSTERN_AGENT_IPSET_SUDO',
    default: 'false',
    expect: 'must be true or false (or yes/no, 1/0)',
    help: 'run ipset through sudo (for an agent that does not run as root)',
    schema: booleanValue,
  }),
  'nftables.allowedSets': setting({
    env: 'POSTERN_AGENT_NFTABLES_ALLOWED_SETS',
    default: '',
    expect: 'must be a list of nftables sets as family/table/set',
    help: 'comma-separated nftables sets (family/table/set, e.g. inet/postern/allow4) this agent may change; empty: none',
    schema: nftablesSets,
  }),
  'nftables.useSudo': setting({
    env: 'POSTERN_AGENT_NFTABLES_SUDO',
    default: 'false',
    expect: 'must be true or false (or yes/no, 1/0)',
    help: 'run nft through sudo (for an agent that does not run as root)',
    schema: booleanValue,
  }),
  'haproxy.socket': setting({
    env: 'POSTERN_AGENT_HAPROXY_SOCKET',
    expect: 'must be an absolute unix socket path or tcp://host:port',
    help: 'HAProxy runtime API: a unix socket path or tcp://host:port',
    schema: haproxySocket,
  }),
  'knocproxy.tlsCertFile': setting({
    env: 'POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE',
    expect: 'must be a file path',
    help: 'PEM certificate (chain) for knocproxy to serve HTTPS on tcp addresses; give knocproxy.tlsKeyFile too',
    schema: filePath,
  }),
  'knocproxy.tlsKeyFile': setting({
    env: 'POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE',
    expect: 'must be a file path',
    help: 'PEM private key for knocproxy.tlsCertFile; must not be readable by group or others (chmod 600)',
    schema: filePath,
  }),
  'aws.endpoint': setting({
    env: 'POSTERN_AGENT_AWS_ENDPOINT',
    expect: 'must be an https URL without credentials, query or fragment (or empty for the regional default)',
    help: 'EC2 API endpoint for the aws driver (GovCloud, a VPC endpoint); empty: https://ec2.<Region>.amazonaws.com',
    schema: awsEndpoint,
  }),
  'azure.authorityHost': setting({
    env: 'POSTERN_AGENT_AZURE_AUTHORITY_HOST',
    default: 'https://login.microsoftonline.com',
    expect: 'must be an https:// URL without credentials or query',
    help: 'Microsoft Entra authority the Azure driver gets its tokens from (China: https://login.chinacloudapi.cn, US Government: https://login.microsoftonline.us)',
    schema: azureEndpoint,
  }),
  'azure.managementEndpoint': setting({
    env: 'POSTERN_AGENT_AZURE_MANAGEMENT_ENDPOINT',
    default: 'https://management.azure.com',
    expect: 'must be an https:// URL without credentials or query',
    help: 'Azure Resource Manager the Azure driver changes NSGs through, also the token scope (China: https://management.chinacloudapi.cn, US Government: https://management.usgovcloudapi.net)',
    schema: azureEndpoint,
  }),
  'azure.priorityFrom': setting({
    env: 'POSTERN_AGENT_AZURE_PRIORITY_FROM',
    default: '3000',
    expect: 'must be a whole number from 100 to 4096',
    help: 'lowest NSG rule priority the Azure driver gives its rules (one rule per granted address)',
    schema: () => integerIn(100, 4096),
  }),
  'azure.priorityTo': setting({
    env: 'POSTERN_AGENT_AZURE_PRIORITY_TO',
    default: '3999',
    expect: 'must be a whole number from 100 to 4096, not below azure.priorityFrom',
    help: 'highest NSG rule priority the Azure driver gives its rules; keep your own rules outside the band',
    schema: () => integerIn(100, 4096),
  }),
  heartbeatSeconds: setting({
    env: 'POSTERN_AGENT_HEARTBEAT_SECONDS',
    default: '15',
    expect: 'must be a whole number of seconds from 5 to 300',
    help: 'how often the agent tells the server it is alive',
    schema: () => integerIn(5, 300),
  }),
  driftCheckSeconds: setting({
    env: 'POSTERN_AGENT_DRIFT_CHECK_SECONDS',
    default: '300',
    expect: 'must be 0 (off) or a whole number of seconds from 10 to 86400',
    help: 'how often the agent lists its devices and puts back lost grants or removes addresses nobody granted',
    schema: () => integerIn(0, 86400).refine((seconds) => seconds === 0 || seconds >= 10),
  }),
  'metrics.listen': setting({
    env: 'POSTERN_AGENT_METRICS_LISTEN',
    default: 'off',
    expect: 'must be "off" or a loopback host:port such as 127.0.0.1:9465 or [::1]:9465',
    help: 'serve Prometheus metrics (postern_agent_*) at http://<this>/metrics; loopback only; off by default',
    schema: metricsListen,
  }),
  logLevel: setting({
    env: 'POSTERN_AGENT_LOG_LEVEL',
    flag: '--log-level',
    default: 'info',
    expect: `must be one of ${LOG_LEVELS.join(', ')}`,
    help: `how much to log: ${LOG_LEVELS.join(', ')}`,
    schema: () => z.string().trim().toLowerCase().pipe(z.enum(LOG_LEVELS)),
  }),
} as const;

/** A setting's dotted key, e.g. `scripts.enabled`. */
export type SettingKey = keyof typeof SETTINGS;

/** The parsed type of one setting. */
export type SettingValue<K extends SettingKey> = z.output<ReturnType<(typeof SETTINGS)[K]['schema']>>;

/** The settings in their documented order. */
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];
