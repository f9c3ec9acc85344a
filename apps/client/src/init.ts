import { existsSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_KEY_FILE_NAME, parseServerUrl, type ConfigFile } from './config.js';
import { ClientError, usageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { KEY_ENV, readApiKey, writeKeyFile } from './key-file.js';
import type { CommandResult } from './output.js';
import { ensurePrivateDir, writePrivateFile } from './private-file.js';

export interface InitOptions {
  configFile: string;
  server: string;
  /** Default: `key` beside the config file. */
  keyFile?: string;
  /** Read the key from standard input and write the key file. */
  keyStdin: boolean;
  force: boolean;
  /** The default knoc list for login. */
  knocs: readonly string[];
  sessionFile?: string;
}

/**
 * `postern-client init`: writes the config file (and with --key-stdin the key file), each with mode
 * 0600 from creation, in a directory created with mode 0700. Existing files are kept unless --force.
 */
export async function runInit(readKey: () => Promise<string>, options: InitOptions): Promise<CommandResult> {
  const server = parseServerUrl(options.server);
  const configFile = path.resolve(options.configFile);
  const dir = path.dirname(configFile);
  const keyFile = path.resolve(dir, options.keyFile ?? DEFAULT_KEY_FILE_NAME);
  // Refuse before reading the key, so nobody pastes a key for nothing.
  if (!options.force && existsSync(configFile)) throw usageError(`${configFile} exists already (--force replaces it)`);
  if (options.keyStdin && !options.force && existsSync(keyFile)) {
    throw usageError(`the key file ${keyFile} exists already (--force replaces it)`);
  }
  const warnings = server.warning === null ? [] : [server.warning];
  const lines: string[] = [];

  ensurePrivateDir(dir);
  if (options.keyStdin) {
    const key = await readKey();
    ensurePrivateDir(path.dirname(keyFile));
    writeKeyFile(keyFile, key, options.force);
    lines.push(`Wrote the key file ${keyFile} (mode 600).`);
  } else if (!existsSync(keyFile)) {
    lines.push(`Put the API key in ${keyFile} (mode 600; or run init again with --key-stdin), or set ${KEY_ENV}.`);
  } else {
    try {
      readApiKey(keyFile, {});
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      warnings.push(error.message);
    }
  }

  const config: ConfigFile = {
    server: server.url,
    keyFile,
    ...(options.knocs.length > 0 ? { knocs: [...options.knocs] } : {}),
    ...(options.sessionFile === undefined ? {} : { sessionFile: path.resolve(options.sessionFile) }),
  };
  writePrivateFile(configFile, `${JSON.stringify(config, null, 2)}\n`, { replace: options.force });
  lines.unshift(`Wrote ${configFile} (mode 600) for ${server.url}.`);
  lines.push('Test it with: postern-client login');
  return {
    exitCode: ExitCode.Ok,
    document: {
      OK: true,
      ExitCode: ExitCode.Ok,
      ConfigFile: configFile,
      Server: config.server,
      KeyFile: config.keyFile,
      Knocs: config.knocs ?? [],
      SessionFile: config.sessionFile ?? null,
      Warnings: warnings,
    },
    lines,
    warnings,
  };
}
