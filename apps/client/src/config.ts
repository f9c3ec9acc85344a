import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { usageError } from './errors.js';
import { isCode, reason } from './private-file.js';

/** Environment variable naming the config file (--config wins over it). */
export const CONFIG_ENV = 'POSTERN_CLIENT_CONFIG';
/** Environment variable giving the server URL (--server wins over it, and it over the config file). */
export const SERVER_ENV = 'POSTERN_CLIENT_SERVER';
/** The config file of a client run by root (a system service, a cron job). */
export const SYSTEM_CONFIG_FILE = '/etc/postern-client/config.json';
/** Names of the files `init` puts beside the config file unless told otherwise. */
export const DEFAULT_KEY_FILE_NAME = 'key';
export const DEFAULT_SESSION_FILE_NAME = 'session.json';

/** The config file as written by `init` (and by hand). Unknown keys are refused: a typo must not pass. */
export const ConfigFile = z.strictObject({
  /** The Postern server's base URL. */
  server: z.string().min(1),
  /** The file holding the API key (mode 600). Relative paths are relative to the config file. */
  keyFile: z.string().min(1).optional(),
  /** The knocs `login` asks for when no --knoc is given (names or IDs); absent: all the user may use. */
  knocs: z.array(z.string().trim().min(1)).optional(),
  /** Where `login` saves the session for `status` and `logout`; default session.json beside the config. */
  sessionFile: z.string().min(1).optional(),
});
export type ConfigFile = z.infer<typeof ConfigFile>;

/** What the config file, the environment and the flags add up to. */
export interface Settings {
  configFile: string;
  /** Whether the config file exists (status and logout run without one, on the default paths). */
  configFound: boolean;
  /** The server's base URL without a trailing slash, or null when nothing names one. */
  server: string | null;
  keyFile: string;
  /** The default knoc list (empty: every knoc the user may use). */
  knocs: string[];
  sessionFile: string;
}

/** The flags that override the config file. */
export interface SettingFlags {
  config?: string;
  server?: string;
  keyFile?: string;
  sessionFile?: string;
}

/**
 * The config file used: --config, else $POSTERN_CLIENT_CONFIG, else /etc/postern-client/config.json
 * for root, else $XDG_CONFIG_HOME (or ~/.config)/postern-client/config.json.
 */
export function configFilePath(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  isRoot = process.getuid?.() === 0,
): string {
  if (flag !== undefined && flag !== '') return path.resolve(flag);
  const fromEnv = env[CONFIG_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(fromEnv);
  if (isRoot) return SYSTEM_CONFIG_FILE;
  const base =
    env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== ''
      ? env.XDG_CONFIG_HOME
      : path.join(os.homedir(), '.config');
  return path.join(base, 'postern-client', 'config.json');
}

/** Reads and checks a config file; null when it does not exist. */
export function readConfigFile(file: string): ConfigFile | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw usageError(`cannot read the config file ${file}: ${reason(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw usageError(`the config file ${file} is not valid JSON`);
  }
  const parsed = ConfigFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    const what =
      issue?.code === 'unrecognized_keys' ? `unknown setting ${issue.keys.join(', ')}` : (issue?.message ?? 'invalid');
    throw usageError(`the config file ${file} is invalid: ${where}${what}`);
  }
  return parsed.data;
}

/**
 * The settings for a command. `requireServer`: login needs a server, from the flag, the environment
 * or the config file; status and logout take it from the saved session instead.
 */
export function loadSettings(
  flags: SettingFlags,
  { requireServer, env = process.env }: { requireServer: boolean; env?: NodeJS.ProcessEnv },
): Settings {
  const configFile = configFilePath(flags.config, env);
  const file = readConfigFile(configFile);
  if (file === null && flags.config !== undefined) throw usageError(`the config file ${configFile} does not exist`);
  const dir = path.dirname(configFile);
  const rawServer = flags.server ?? nonEmpty(env[SERVER_ENV]) ?? file?.server ?? null;
  if (rawServer === null && requireServer) {
    throw usageError(
      `no server configured: ${configFile} does not exist (postern-client init --server URL writes it), and neither --server nor ${SERVER_ENV} is set`,
    );
  }
  return {
    configFile,
    configFound: file !== null,
    server: rawServer === null ? null : parseServerUrl(rawServer).url,
    keyFile:
      flags.keyFile !== undefined
        ? path.resolve(flags.keyFile)
        : path.resolve(dir, file?.keyFile ?? DEFAULT_KEY_FILE_NAME),
    knocs: file?.knocs ?? [],
    sessionFile:
      flags.sessionFile !== undefined
        ? path.resolve(flags.sessionFile)
        : path.resolve(dir, file?.sessionFile ?? DEFAULT_SESSION_FILE_NAME),
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A checked server URL, and a warning when it sends the key in the clear over a network. */
export interface ServerUrl {
  /** Scheme, host, port and path prefix, without a trailing slash. */
  url: string;
  warning: string | null;
}

/**
 * Checks a server URL: http or https only, no credentials, query or fragment (the API paths are
 * appended to it). Plain http is allowed, with a warning unless it stays on this machine.
 */
export function parseServerUrl(raw: string): ServerUrl {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw usageError(`the server URL ${JSON.stringify(raw)} is not a URL (expected https://postern.example)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw usageError(`the server URL must start with https:// or http:// (not ${url.protocol}//)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw usageError('the server URL must not hold a user name or password; the API key goes in the key file');
  }
  if (url.search !== '' || url.hash !== '')
    throw usageError('the server URL must not have a query (?) or fragment (#)');
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const warning =
    url.protocol === 'http:' && !isLoopback(url.hostname)
      ? `${base} is plain http://: the API key and the session cookie cross the network unencrypted`
      : null;
  return { url: base, warning };
}

/** Whether a URL's host name is this machine (localhost, 127.0.0.0/8, ::1). */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}
