import { ConfigError } from './config-error.js';
import { checkCaFile, checkScriptsDirectory, checkTlsPair } from './files.js';
import type { Secret } from './secret.js';
import {
  SETTINGS,
  SETTING_KEYS,
  type HaproxySocket,
  type LogLevel,
  type SettingKey,
  type SettingValue,
} from './settings.js';
import {
  DEFAULT_CONFIG_FILE,
  locateConfigFile,
  readConfigFile,
  readEnvironment,
  readFlags,
  type ConfigFlags,
  type RawValue,
  type SourceValues,
} from './sources.js';
import { inspectStateDirectory, prepareStateDirectory } from './state-dir.js';
import { defaultKeyFile, inspectKeyFile } from './agent-key.js';
import { resolveToken } from './token.js';
import { serverWarnings, toConnectUrl } from './server-url.js';

/** The agent's validated configuration. */
export interface AgentConfig {
  /** The JSON file the settings were read from, if any. */
  configFile: string | null;
  /** Base URL of the Postern server, without a trailing slash. */
  serverUrl: string;
  /** The WebSocket URL the agent opens: `serverUrl` as ws(s):// plus the agent API path. */
  connectUrl: string;
  token: Secret;
  /** The file the token was read from, or null when it came from POSTERN_AGENT_TOKEN. */
  tokenFile: string | null;
  stateFile: string;
  /** The agent's private key (made on the first run when missing); beside stateFile by default. */
  keyFile: string;
  /** Extra PEM certificates to trust for the server. */
  caFile: string | null;
  insecureSkipVerify: boolean;
  scripts: { enabled: boolean; directory: string; timeoutSeconds: number };
  /** The agent may only touch the sets listed here. */
  ipset: { allowedSets: string[]; useSudo: boolean };
  /** The agent may only touch the nftables sets listed here, each as `family/table/set`. */
  nftables: { allowedSets: string[]; useSudo: boolean };
  haproxy: { socket: HaproxySocket | null };
  /** knocproxy serves HTTPS with these (both set) or plain HTTP (neither). */
  knocproxy: { tlsCertFile: string | null; tlsKeyFile: string | null };
  /** The EC2 API endpoint for aws backends; null: the regional default (https://ec2.<Region>.amazonaws.com). */
  aws: { endpoint: string | null };
  /** Which Azure cloud the Azure NSG driver talks to, and the rule priorities it may take. */
  azure: { authorityHost: string; managementEndpoint: string; priorityFrom: number; priorityTo: number };
  heartbeatSeconds: number;
  /** How often devices are checked for drift between desired states; 0: only on each state. */
  driftCheckSeconds: number;
  /** Where GET /metrics is served (loopback only); null: off. */
  metrics: { listen: { host: string; port: number } | null };
  logLevel: LogLevel;
}

/** Where to look for settings; the defaults read the real process. Tests pass their own. */
export interface LoadOptions {
  flags?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** The config file read when none is named (only if it exists). */
  defaultConfigFile?: string;
  /** Create the state file's directory now (mode 700) instead of only checking that it could be. */
  createStateDirectory?: boolean;
}

/** A valid configuration and the warnings the operator should see (insecure transport and such). */
export interface LoadedConfig {
  config: AgentConfig;
  warnings: string[];
}

/**
 * Reads the config file, the environment and the flags (each overriding the one before), then
 * validates every setting. Throws {@link ConfigError} naming the first setting that is wrong.
 */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const file = locateConfigFile(flags, env, cwd, options.defaultConfigFile ?? DEFAULT_CONFIG_FILE);
  const raw: SourceValues = {
    ...(file === null ? {} : readConfigFile(file)),
    ...readEnvironment(env, cwd),
    ...readFlags(flags, cwd),
  };
  const settings = new ParsedSettings(raw, cwd);

  const serverUrl = settings.value('serverUrl');
  if (serverUrl === undefined) {
    throw new ConfigError(
      SETTINGS.serverUrl.env,
      `must be set (serverUrl in the config file, ${SETTINGS.serverUrl.env} or --server-url)`,
    );
  }
  const token = settings.value('token');
  const tokenFile = settings.value('tokenFile');
  const credentials = resolveToken({
    ...(token === undefined ? {} : { token: { value: token, label: settings.label('token') } }),
    ...(tokenFile === undefined ? {} : { tokenFile: { path: tokenFile, label: settings.label('tokenFile') } }),
  });

  const config: AgentConfig = {
    configFile: file?.path ?? null,
    serverUrl,
    connectUrl: toConnectUrl(serverUrl),
    ...credentials,
    stateFile: settings.required('stateFile'),
    keyFile: settings.value('keyFile') ?? defaultKeyFile(settings.required('stateFile')),
    caFile: settings.value('caFile') ?? null,
    insecureSkipVerify: settings.required('insecureSkipVerify'),
    scripts: {
      enabled: settings.required('scripts.enabled'),
      directory: settings.required('scripts.directory'),
      timeoutSeconds: settings.required('scripts.timeoutSeconds'),
    },
    ipset: { allowedSets: settings.required('ipset.allowedSets'), useSudo: settings.required('ipset.useSudo') },
    nftables: {
      allowedSets: settings.required('nftables.allowedSets'),
      useSudo: settings.required('nftables.useSudo'),
    },
    haproxy: { socket: settings.value('haproxy.socket') ?? null },
    knocproxy: {
      tlsCertFile: settings.value('knocproxy.tlsCertFile') ?? null,
      tlsKeyFile: settings.value('knocproxy.tlsKeyFile') ?? null,
    },
    aws: { endpoint: settings.value('aws.endpoint') ?? null },
    azure: {
      authorityHost: settings.required('azure.authorityHost'),
      managementEndpoint: settings.required('azure.managementEndpoint'),
      priorityFrom: settings.required('azure.priorityFrom'),
      priorityTo: settings.required('azure.priorityTo'),
    },
    heartbeatSeconds: settings.required('heartbeatSeconds'),
    driftCheckSeconds: settings.required('driftCheckSeconds'),
    metrics: { listen: settings.value('metrics.listen') ?? null },
    logLevel: settings.required('logLevel'),
  };

  if (config.caFile !== null) checkCaFile(config.caFile, settings.label('caFile'));
  if (config.scripts.enabled) checkScriptsDirectory(config.scripts.directory, settings.label('scripts.directory'));
  checkTlsPair(config.knocproxy, {
    cert: settings.label('knocproxy.tlsCertFile'),
    key: settings.label('knocproxy.tlsKeyFile'),
  });
  if (config.azure.priorityTo < config.azure.priorityFrom) {
    throw new ConfigError(
      settings.label('azure.priorityTo'),
      `must not be below azure.priorityFrom (${config.azure.priorityFrom}): the band of Azure rule priorities would be empty`,
    );
  }
  const stateLabel = settings.label('stateFile');
  // Inspect first: it reports a directory others can read, and refuses a state file that is a directory.
  const stateWarning = inspectStateDirectory(config.stateFile, stateLabel);
  if (options.createStateDirectory === true) prepareStateDirectory(config.stateFile, stateLabel);
  // An existing key that cannot be used stops the agent now, with one line, not at its first connection.
  inspectKeyFile(config.keyFile, settings.label('keyFile'));

  const warnings = serverWarnings(config);
  if (stateWarning !== null) warnings.push(stateWarning);
  return { config, warnings };
}

/** Every setting parsed once, in documented order, so the first invalid one is the one reported. */
class ParsedSettings {
  readonly #values = new Map<SettingKey, unknown>();
  readonly #labels = new Map<SettingKey, string>();

  constructor(raw: SourceValues, cwd: string) {
    for (const key of SETTING_KEYS) {
      const definition = SETTINGS[key];
      const source: RawValue | undefined =
        raw[key] ??
        ('default' in definition ? { value: definition.default, label: definition.env, baseDir: cwd } : undefined);
      this.#labels.set(key, source?.label ?? definition.env);
      if (source !== undefined) this.#values.set(key, parseValue(key, source));
    }
  }

  /** The parsed value, or undefined when no source gives one and there is no default. */
  value<K extends SettingKey>(key: K): SettingValue<K> | undefined {
    return this.#values.get(key) as SettingValue<K> | undefined;
  }

  /** The value of a setting that has a default, so it is always present. */
  required<K extends SettingKey>(key: K): SettingValue<K> {
    const value = this.value(key);
    if (value === undefined) throw new Error(`setting ${key} has no default`);
    return value;
  }

  /** How the operator named the setting where its value came from. */
  label(key: SettingKey): string {
    return this.#labels.get(key) ?? SETTINGS[key].env;
  }
}

function parseValue(key: SettingKey, source: RawValue): unknown {
  const definition: (typeof SETTINGS)[SettingKey] = SETTINGS[key];
  const secret = 'secret' in definition && definition.secret;
  const got = secret ? '' : ` (got ${show(source.value)})`;
  const result = definition.schema({ baseDir: source.baseDir }).safeParse(source.value, {
    // Issues without their own message (most) read "<expect> (got …)"; specific ones keep theirs.
    error: () => `${definition.expect}${got}`,
  });
  if (result.success) return result.data;
  throw new ConfigError(source.label, result.error.issues[0]?.message ?? definition.expect);
}

function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
