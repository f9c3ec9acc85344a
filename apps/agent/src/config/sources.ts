import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.js';
import { SETTINGS, SETTING_KEYS, type SettingKey } from './settings.js';

/** The environment variable naming the JSON config file (`--config` wins over it). */
export const CONFIG_FILE_ENV = 'POSTERN_AGENT_CONFIG';

/** Read when neither `--config` nor {@link CONFIG_FILE_ENV} names a file, and only if it exists. */
export const DEFAULT_CONFIG_FILE = '/etc/postern-agent/config.json';

/** The command-line flags that carry settings (commander's camelCase names). */
export interface ConfigFlags {
  config?: string;
  serverUrl?: string;
  tokenFile?: string;
  stateFile?: string;
  keyFile?: string;
  logLevel?: string;
}

/** One value as a source gave it, before parsing. */
export interface RawValue {
  /** A string from the environment or a flag; any JSON value from the file. */
  value: unknown;
  /** How the operator names this setting in this source, for error messages. */
  label: string;
  /** Relative paths in this value resolve against this directory. */
  baseDir: string;
}

/** The values one source gives, by setting key. */
export type SourceValues = Partial<Record<SettingKey, RawValue>>;

/** Picks the config file: `--config`, else {@link CONFIG_FILE_ENV}, else the default path if it exists. */
export function locateConfigFile(
  flags: ConfigFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
  defaultFile: string,
): { path: string; label: string } | null {
  if (flags.config !== undefined) return { path: path.resolve(cwd, flags.config), label: '--config' };
  const fromEnv = env[CONFIG_FILE_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== '') {
    return { path: path.resolve(cwd, fromEnv), label: CONFIG_FILE_ENV };
  }
  return existsSync(defaultFile) ? { path: defaultFile, label: defaultFile } : null;
}

/**
 * Reads the JSON config file: one object with the settings' camelCase keys, the dotted ones as
 * nested sections (`{"scripts": {"enabled": true}}`). A key we do not know is an error rather than
 * ignored, because a misspelt security setting would otherwise silently keep its default.
 */
export function readConfigFile(file: { path: string; label: string }): SourceValues {
  let text: string;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch (error) {
    throw new ConfigError(file.label, `cannot read ${file.path} (${errorCode(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(file.path, 'is not valid JSON');
  }
  if (!isPlainObject(parsed)) throw new ConfigError(file.path, 'must hold one JSON object of settings');
  const values: SourceValues = {};
  collect(parsed, '', file.path, values);
  return values;
}

const SECTIONS = new Set(SETTING_KEYS.filter((key) => key.includes('.')).map((key) => key.split('.')[0]));

function collect(object: Record<string, unknown>, prefix: string, file: string, into: SourceValues): void {
  for (const [name, value] of Object.entries(object)) {
    const key = `${prefix}${name}`;
    if (prefix === '' && SECTIONS.has(name)) {
      if (!isPlainObject(value)) throw new ConfigError(`${file}: ${key}`, 'must be an object of settings');
      collect(value, `${key}.`, file, into);
      continue;
    }
    // A literal "scripts.enabled" key is not the nested form the file uses, so it is unknown too.
    if (name.includes('.') || !isSettingKey(key)) throw new ConfigError(file, `unknown setting "${key}"`);
    // null reads as "not set here", so the next source or the default applies.
    if (value !== null) into[key] = { value, label: `${file}: ${key}`, baseDir: path.dirname(file) };
  }
}

/** The values set in the environment. An empty variable counts as unset, as systemd's `Environment=X=` intends. */
export function readEnvironment(env: NodeJS.ProcessEnv, cwd: string): SourceValues {
  const values: SourceValues = {};
  for (const key of SETTING_KEYS) {
    const name = SETTINGS[key].env;
    const value = env[name];
    if (value !== undefined && value.trim() !== '') values[key] = { value, label: name, baseDir: cwd };
  }
  return values;
}

const FLAG_KEYS = {
  serverUrl: 'serverUrl',
  tokenFile: 'tokenFile',
  stateFile: 'stateFile',
  keyFile: 'keyFile',
  logLevel: 'logLevel',
} as const satisfies Partial<Record<keyof ConfigFlags, SettingKey>>;

/** The values given as command-line flags. */
export function readFlags(flags: ConfigFlags, cwd: string): SourceValues {
  const values: SourceValues = {};
  for (const [flagName, key] of Object.entries(FLAG_KEYS) as [keyof typeof FLAG_KEYS, SettingKey][]) {
    const value = flags[flagName];
    if (value !== undefined) values[key] = { value, label: SETTINGS[key].flag ?? key, baseDir: cwd };
  }
  return values;
}

function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The errno code of a failed file operation, for one-line messages. */
export function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
}
