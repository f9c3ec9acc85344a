import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type LoadedConfig } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import type { ConfigFlags } from '../config/sources.js';

/** A token that passes validation; tests check it never shows up where it must not. */
export const VALID_TOKEN = 'tok_5a3f9c1e7b2d4a6f8e0c9b1d';

/** Settings given to {@link ConfigFixture.load}; `undefined` in `env` removes a baseline variable. */
export interface LoadInput {
  env?: Record<string, string | undefined>;
  /** Written to `config.json` in the fixture directory and named with `--config`. */
  file?: unknown;
  flags?: ConfigFlags;
  createStateDirectory?: boolean;
}

/** A private temporary directory with helpers to write files and load a configuration from it. */
export interface ConfigFixture {
  dir: string;
  /** Absolute path of a name inside the fixture directory. */
  path(name: string): string;
  /** Writes a file (creating parent directories) with the given mode; returns its absolute path. */
  write(name: string, content: string, mode?: number): string;
  /** Creates a directory with the given mode; returns its absolute path. */
  mkdir(name: string, mode?: number): string;
  /** Loads from a valid baseline (server URL, token, a state file in the fixture) plus `input`. */
  load(input?: LoadInput): LoadedConfig;
  /** Runs {@link ConfigFixture.load} and returns the ConfigError it must throw. */
  loadError(input?: LoadInput): ConfigError;
  remove(): void;
}

/** Creates a fixture; call `remove()` after each test. */
export function createConfigFixture(): ConfigFixture {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-config-'));
  const resolve = (name: string) => path.join(dir, name);
  const fixture: ConfigFixture = {
    dir,
    path: resolve,
    write(name, content, mode = 0o600) {
      const file = resolve(name);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, content);
      chmodSync(file, mode);
      return file;
    },
    mkdir(name, mode = 0o700) {
      const target = resolve(name);
      mkdirSync(target, { recursive: true });
      chmodSync(target, mode);
      return target;
    },
    load(input = {}) {
      const env: NodeJS.ProcessEnv = {
        POSTERN_AGENT_SERVER_URL: 'https://postern.example.com',
        POSTERN_AGENT_TOKEN: VALID_TOKEN,
        POSTERN_AGENT_STATE_FILE: resolve('state/state.json'),
      };
      for (const [name, value] of Object.entries(input.env ?? {})) {
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
      const flags: ConfigFlags = { ...input.flags };
      if (input.file !== undefined) {
        flags.config ??= fixture.write('config.json', JSON.stringify(input.file));
      }
      return loadConfig({
        env,
        flags,
        cwd: dir,
        // Never the host's real /etc/postern-agent/config.json.
        defaultConfigFile: resolve('absent-default.json'),
        ...(input.createStateDirectory === undefined ? {} : { createStateDirectory: input.createStateDirectory }),
      });
    },
    loadError(input) {
      try {
        fixture.load(input);
      } catch (error) {
        if (error instanceof ConfigError) return error;
        throw error;
      }
      throw new Error('expected a ConfigError, but the configuration loaded');
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return fixture;
}
