import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isIP } from 'node:net';
import { z } from 'zod';
import { EXPERIMENTAL_FEATURES, IP_DISCOVERY_PORTS, parseIpOrCidr, type ExperimentalFeature } from '@postern/protocol';
import { ConfigError } from './config-error.js';
import type { ReleaseFeedLocation } from '../releases/release-feed-source.js';

/**
 * Every setting: its environment variable, its key in the optional JSON config file, how to parse
 * it and its default. The environment wins over the file, the file over the default.
 */
/**
 * 10,000 agents reconnecting after a blip overflowed Node's default of 511: connections their agents
 * had long given up on were accepted half a minute later. The kernel caps this at
 * net.core.somaxconn (4096 on current kernels; raise it for bigger fleets).
 */
const DEFAULT_LISTEN_BACKLOG = 16_384;

const SETTINGS = {
  host: { env: 'POSTERN_HOST', default: '127.0.0.1' },
  port: { env: 'POSTERN_PORT', default: '8080' },
  listenBacklog: { env: 'POSTERN_LISTEN_BACKLOG', default: String(DEFAULT_LISTEN_BACKLOG) },
  dataDir: { env: 'POSTERN_DATA_DIR', default: './data' },
  databaseUrl: { env: 'DATABASE_URL', default: '' },
  trustedProxies: { env: 'POSTERN_TRUSTED_PROXIES', default: '' },
  publicUrl: { env: 'POSTERN_PUBLIC_URL', default: '' },
  secretKey: { env: 'POSTERN_SECRET_KEY', default: '' },
  insecureHttp: { env: 'POSTERN_INSECURE_HTTP', default: 'false' },
  logLevel: { env: 'POSTERN_LOG_LEVEL', default: 'info' },
  webDir: { env: 'POSTERN_WEB_DIR', default: '' },
  licencePublicKeys: { env: 'POSTERN_LICENCE_PUBLIC_KEYS', default: '' },
  ipDiscoveryPorts: { env: 'POSTERN_IP_DISCOVERY_PORTS', default: IP_DISCOVERY_PORTS.join(',') },
  supportUrl: { env: 'POSTERN_SUPPORT_URL', default: '' },
  supportEmail: { env: 'POSTERN_SUPPORT_EMAIL', default: '' },
  licensingUrl: { env: 'POSTERN_LICENSING_URL', default: '' },
  releaseFeed: { env: 'POSTERN_RELEASE_FEED', default: '' },
  experimentalFeatures: { env: 'POSTERN_EXPERIMENTAL_FEATURES', default: '' },
  metricsListen: { env: 'POSTERN_METRICS_LISTEN', default: '127.0.0.1:9464' },
  metricsToken: { env: 'POSTERN_METRICS_TOKEN', default: '' },
} as const;

type SettingKey = keyof typeof SETTINGS;

/** The environment variable that names the optional JSON config file. */
export const CONFIG_FILE_ENV = 'POSTERN_CONFIG';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface PosternConfig {
  host: string;
  port: number;
  /**
   * Connections the kernel may queue before the server accepts them: sized for a fleet of agents
   * reconnecting at once (the kernel caps it at net.core.somaxconn).
   */
  listenBacklog: number;
  /** Absolute path of the directory holding the embedded store and the key file. */
  dataDir: string;
  /** Where the store lives: the embedded SQLite file, or a PostgreSQL URL. */
  store: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  /** Peers whose X-Forwarded-For / X-Forwarded-Proto are believed: IPs or CIDRs. Empty: none. */
  trustedProxies: string[];
  /** The URL people use to reach Postern, when it differs from what requests show (e.g. behind TLS). */
  publicUrl: string | null;
  /** 32-byte key for secrets at rest; when absent, a key file in the data directory is used. */
  secretKey: Buffer | null;
  /** Plain-HTTP development mode: session cookies without `Secure` and without the `__Host-` prefix. */
  insecureHttp: boolean;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Directory of the built web app, or null for the one built beside the server. */
  webDir: string | null;
  /** Ed25519 public keys (32 bytes each) that licence keys must be signed with. */
  licencePublicKeys: Buffer[];
  /** Ports the built-in IP discovery responder listens on; empty: off. */
  ipDiscoveryPorts: number[];
  /** The operator's support page, linked from the console's licence dialog; null: no link. */
  supportUrl: string | null;
  /** The operator's support mail address: the knocs' Contact tile writes to it; null: none. */
  supportEmail: string | null;
  /** Where licences are bought or renewed, linked from the licence dialog and banner; null: no link. */
  licensingUrl: string | null;
  /**
   * The operator's release feed (docs/operations.md): a file, or an https URL (http only to this
   * machine); null: none, and the console knows of no release but the running one.
   */
  releaseFeed: ReleaseFeedLocation | null;
  /** Experimental features turned on, reported to the console in the admin status. */
  experimentalFeatures: ExperimentalFeature[];
  /** The Prometheus /metrics listener (see metrics/metrics-listener.ts); null: off. */
  metrics: MetricsListenerConfig | null;
}

export interface MetricsListenerConfig {
  host: string;
  port: number;
  /** When set, scrapes must send `Authorization: Bearer <token>`. */
  token: string | null;
}

type RawSettings = Record<SettingKey, string>;

/** Reads settings from the environment and the optional config file, and validates every one. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): PosternConfig {
  const raw = mergeSources(env, readConfigFile(env, cwd));
  return {
    host: parseHost(raw.host),
    port: parsePort(raw.port),
    listenBacklog: parseBacklog(raw.listenBacklog),
    dataDir: path.resolve(cwd, nonEmpty('dataDir', raw.dataDir)),
    store: parseStore(raw.databaseUrl, path.resolve(cwd, raw.dataDir)),
    trustedProxies: parseTrustedProxies(raw.trustedProxies),
    publicUrl: parsePublicUrl(raw.publicUrl),
    secretKey: parseSecretKey(raw.secretKey),
    insecureHttp: parseBoolean('insecureHttp', raw.insecureHttp),
    logLevel: parseLogLevel(raw.logLevel),
    webDir: raw.webDir === '' ? null : path.resolve(cwd, raw.webDir),
    licencePublicKeys: parseLicencePublicKeys(raw.licencePublicKeys),
    ipDiscoveryPorts: parseDiscoveryPorts(raw.ipDiscoveryPorts),
    supportUrl: parseLinkUrl('supportUrl', raw.supportUrl),
    supportEmail: parseEmailAddress(raw.supportEmail),
    licensingUrl: parseLinkUrl('licensingUrl', raw.licensingUrl),
    releaseFeed: parseReleaseFeedLocation(raw.releaseFeed, cwd),
    experimentalFeatures: parseExperimentalFeatures(raw.experimentalFeatures),
    metrics: parseMetricsListener(raw.metricsListen, raw.metricsToken),
  };
}

/** A description of every setting, for `--help` and the README. */
export function describeSettings(): { env: string; fileKey: string; default: string }[] {
  return Object.entries(SETTINGS).map(([fileKey, s]) => ({ env: s.env, fileKey, default: s.default }));
}

function readConfigFile(env: NodeJS.ProcessEnv, cwd: string): Partial<RawSettings> {
  const file = env[CONFIG_FILE_ENV];
  if (file === undefined || file === '') return {};
  const fullPath = path.resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(fullPath, 'utf8');
  } catch (error) {
    throw new ConfigError(CONFIG_FILE_ENV, `cannot read ${fullPath} (${errorCode(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(CONFIG_FILE_ENV, `${fullPath} is not valid JSON`);
  }
  const shape = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));
  const result = shape.safeParse(parsed);
  if (!result.success) {
    throw new ConfigError(CONFIG_FILE_ENV, `${fullPath} must hold one JSON object of settings`);
  }
  const settings: Partial<RawSettings> = {};
  for (const [key, value] of Object.entries(result.data)) {
    if (!(key in SETTINGS)) {
      throw new ConfigError(CONFIG_FILE_ENV, `${fullPath} has an unknown setting "${key}"`);
    }
    settings[key as SettingKey] = Array.isArray(value) ? value.join(',') : String(value);
  }
  return settings;
}

function mergeSources(env: NodeJS.ProcessEnv, file: Partial<RawSettings>): RawSettings {
  const merged = {} as RawSettings;
  for (const [key, setting] of Object.entries(SETTINGS) as [SettingKey, (typeof SETTINGS)[SettingKey]][]) {
    merged[key] = env[setting.env] ?? file[key] ?? setting.default;
  }
  return merged;
}

function nonEmpty(key: SettingKey, value: string): string {
  if (value.trim() === '') throw new ConfigError(SETTINGS[key].env, 'must not be empty');
  return value;
}

function parseHost(value: string, env: string = SETTINGS.host.env): string {
  const host = value.trim();
  // A host name, an IPv4 or an IPv6 literal; no scheme, no port, no path.
  if (host === '' || (!isIP(host) && !/^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(host))) {
    throw new ConfigError(env, `must be a host name or IP address (got "${value}")`);
  }
  return host;
}

function parsePort(value: string): number {
  const port = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new ConfigError(SETTINGS.port.env, `must be a whole number from 1 to 65535 (got "${value}")`);
  }
  return port;
}

function parseBacklog(value: string): number {
  const backlog = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(backlog) || backlog < 1 || backlog > 1_000_000) {
    throw new ConfigError(SETTINGS.listenBacklog.env, `must be a whole number from 1 to 1000000 (got "${value}")`);
  }
  return backlog;
}

/** A comma-separated list of ports, or "off" (or empty) for none. */
function parseDiscoveryPorts(value: string): number[] {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'off') return [];
  const ports = text.split(',').map((part) => part.trim());
  const bad = ports.find((part) => !/^\d{1,5}$/.test(part) || Number(part) < 1 || Number(part) > 65535);
  if (bad !== undefined) {
    throw new ConfigError(
      SETTINGS.ipDiscoveryPorts.env,
      `must be "off" or a comma-separated list of ports from 1 to 65535 (got "${value}")`,
    );
  }
  return [...new Set(ports.map(Number))];
}

function parseStore(databaseUrl: string, dataDir: string): PosternConfig['store'] {
  const value = databaseUrl.trim();
  if (value === '') return { kind: 'sqlite', file: path.join(dataDir, 'postern.db') };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(SETTINGS.databaseUrl.env, 'must be a URL such as postgres://user@host:5432/postern');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(
      SETTINGS.databaseUrl.env,
      `must start with postgres:// or postgresql:// (got ${url.protocol}//); leave it unset for the embedded store`,
    );
  }
  if (url.hostname === '' && !url.searchParams.has('host')) {
    throw new ConfigError(SETTINGS.databaseUrl.env, 'must name a host, such as postgres://user@127.0.0.1:5432/postern');
  }
  return { kind: 'postgres', url: value };
}

function parseTrustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  // The same parser the proxy trust rule uses (lib/forwarded-address.ts): what passes here matches there.
  for (const entry of entries) {
    if (parseIpOrCidr(entry) === null) {
      throw new ConfigError(SETTINGS.trustedProxies.env, `"${entry}" is not an IP address or CIDR range`);
    }
  }
  return entries;
}

function parsePublicUrl(value: string): string | null {
  if (value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(SETTINGS.publicUrl.env, `must be an http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(SETTINGS.publicUrl.env, 'URL must be http or https');
  }
  return url.origin;
}

/**
 * A page the console links to: an absolute http or https URL without credentials, or null when
 * unset. The console shows no link rather than a made-up one.
 */
function parseLinkUrl(key: 'supportUrl' | 'licensingUrl', value: string): string | null {
  const env = SETTINGS[key].env;
  if (value.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(env, `must be an http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(env, 'URL must be http or https');
  if (url.username !== '' || url.password !== '')
    throw new ConfigError(env, 'URL must not contain a user name or password');
  return url.href;
}

/**
 * One mail address (`help@example.com`), or null when unset: what a mailto: link can carry without
 * any header of its own (no spaces, commas, `?` or control characters).
 */
function parseEmailAddress(value: string): string | null {
  const text = value.trim();
  if (text === '') return null;
  if (text.length > 254 || !/^[A-Za-z0-9.!#$%&'*+/=^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/.test(text)) {
    throw new ConfigError(
      SETTINGS.supportEmail.env,
      `must be one mail address such as help@example.com (got "${value}")`,
    );
  }
  return text;
}

/**
 * The release feed: a URL (`scheme:` first) must be https, or http to a loopback host, without
 * credentials; anything else is a file path, relative to the working directory.
 */
function parseReleaseFeedLocation(value: string, cwd: string): ReleaseFeedLocation | null {
  const env = SETTINGS.releaseFeed.env;
  const text = value.trim();
  if (text === '') return null;
  if (!/^[a-z][a-z0-9+.-]*:/i.test(text)) return { kind: 'file', path: path.resolve(cwd, text) };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(env, `must be an https URL or a file path (got "${value}")`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(host));
  if (!secure) throw new ConfigError(env, 'must be an https URL (http only to this machine) or a file path');
  if (url.username !== '' || url.password !== '') {
    throw new ConfigError(env, 'URL must not contain a user name or password');
  }
  return { kind: 'url', url: url.href };
}

/** A comma-separated list of feature names; a misspelt one stops the start rather than doing nothing. */
function parseExperimentalFeatures(value: string): ExperimentalFeature[] {
  const names = value
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const features = names.map((name) => {
    const feature = EXPERIMENTAL_FEATURES.find((known) => known === name);
    if (feature === undefined) {
      throw new ConfigError(
        SETTINGS.experimentalFeatures.env,
        `"${name}" is not an experimental feature (known: ${EXPERIMENTAL_FEATURES.join(', ')})`,
      );
    }
    return feature;
  });
  return [...new Set(features)];
}

/**
 * "off", or host:port ([v6]:port for IPv6) for the metrics listener. Metrics tell an onlooker how
 * many people are signed in and which agents are up: a listener beyond loopback needs a token.
 */
function parseMetricsListener(listen: string, tokenText: string): MetricsListenerConfig | null {
  const env = SETTINGS.metricsListen.env;
  const value = listen.trim();
  if (value.toLowerCase() === 'off' || value === '') return null;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || (match?.[1] !== undefined && isIP(host) !== 6) || port < 1 || port > 65535) {
    throw new ConfigError(env, `must be "off" or host:port, such as 127.0.0.1:9464 or [::1]:9464 (got "${listen}")`);
  }
  const token = tokenText.trim() === '' ? null : tokenText.trim();
  if (token !== null && token.length < 16) {
    throw new ConfigError(
      SETTINGS.metricsToken.env,
      'must be at least 16 characters (for example: openssl rand -hex 32)',
    );
  }
  if (token === null && !isLoopbackHost(host)) {
    throw new ConfigError(
      env,
      `${host} is not a loopback address: set POSTERN_METRICS_TOKEN so scrapers must present it, or listen on 127.0.0.1`,
    );
  }
  return { host: parseHost(host, env), port, token };
}

/** Whether only this machine can reach a listener on `host`. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

function parseSecretKey(value: string): Buffer | null {
  if (value.trim() === '') return null;
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== 32) {
    throw new ConfigError(
      SETTINGS.secretKey.env,
      'must be 32 random bytes in base64 (for example: openssl rand -base64 32)',
    );
  }
  return key;
}

function parseLicencePublicKeys(value: string): Buffer[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const key = Buffer.from(entry, 'base64');
      if (key.length !== 32 || !/^[A-Za-z0-9+/_-]+=*$/.test(entry)) {
        throw new ConfigError(
          SETTINGS.licencePublicKeys.env,
          `"${entry}" is not an Ed25519 public key (32 bytes in base64, as postern licence keygen prints)`,
        );
      }
      return key;
    });
}

function parseBoolean(key: SettingKey, value: string): boolean {
  const normalised = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(normalised)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(normalised)) return false;
  throw new ConfigError(SETTINGS[key].env, `must be true or false (got "${value}")`);
}

function parseLogLevel(value: string): PosternConfig['logLevel'] {
  const level = value.trim().toLowerCase();
  const match = LOG_LEVELS.find((candidate) => candidate === level);
  if (match === undefined) {
    throw new ConfigError(SETTINGS.logLevel.env, `must be one of ${LOG_LEVELS.join(', ')} (got "${value}")`);
  }
  return match;
}

function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
}
