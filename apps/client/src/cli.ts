import { Command, InvalidArgumentError, Option } from 'commander';
import { PosternApi } from './api-client.js';
import type { Clock } from './clock.js';
import { CONFIG_ENV, SERVER_ENV, SYSTEM_CONFIG_FILE, configFilePath, loadSettings } from './config.js';
import { usageError } from './errors.js';
import { exitCodeHelp } from './exit-codes.js';
import { toClientError } from './failure-mapping.js';
import { runInit } from './init.js';
import { KEY_ENV, readApiKey } from './key-file.js';
import { DEFAULT_GRANT_TIMEOUT_MS, runLogin } from './login.js';
import { printResult, type CommandResult, type Output } from './output.js';
import { DEFAULT_PERSIST_INTERVAL_MS, MIN_PERSIST_INTERVAL_MS, runPersist } from './persist.js';
import { eventJson, eventText } from './persist-output.js';
import type { ApiFactory } from './session.js';
import { runLogout, runStatus } from './session-commands.js';
import { CLIENT_VERSION } from './version.js';

/** What the command line needs from the world; main.ts passes the real ones, tests their own. */
export interface CliDeps {
  output: Output;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  fetch?: typeof fetch;
  random: () => number;
  /** Reads the key for `init --key-stdin`. */
  readStdin: () => Promise<string>;
  /** An abort signal that fires on SIGTERM or SIGINT (installed only by `login --persist`). */
  shutdownSignal: () => AbortSignal;
  /** Receives the exit code of the command that ran. */
  setExitCode: (code: number) => void;
}

interface GlobalFlags {
  config?: string;
  sessionFile?: string;
}

interface InitFlags extends GlobalFlags {
  server: string;
  keyFile?: string;
  keyStdin?: boolean;
  knoc?: string[];
  force?: boolean;
}

interface LoginFlags extends GlobalFlags {
  knoc?: string[];
  server?: string;
  keyFile?: string;
  timeout?: number;
  persist?: boolean;
  interval?: number;
  json?: boolean;
}

interface JsonFlags extends GlobalFlags {
  json?: boolean;
}

const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** A commander parser for a number of seconds in [min, max], returned in milliseconds. */
function seconds(min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`expected a number of seconds from ${min} to ${max}`);
    }
    return Math.round(parsed * 1000);
  };
}

function moreHelp(): string {
  return [
    exitCodeHelp(),
    '',
    'Files and environment:',
    `  The config file is --config, else $${CONFIG_ENV}, else ${SYSTEM_CONFIG_FILE} for root,`,
    '  else ~/.config/postern-client/config.json ($XDG_CONFIG_HOME). `init` writes it.',
    `  $${KEY_ENV} holds the API key itself (for CI systems); otherwise it is read from the key file,`,
    '  which group and others must not be able to read (chmod 600).',
    `  $${SERVER_ENV} or --server names the server when there is no config file.`,
    '  A server with a certificate from a private CA: set NODE_EXTRA_CA_CERTS to the CA certificate file.',
  ].join('\n');
}

/**
 * The `postern-client` command line. Global flags (--config, --session-file) work before or after
 * the command name.
 */
export function buildCli(deps: CliDeps): Command {
  const apiFor: ApiFactory = (server) => new PosternApi({ server, fetch: deps.fetch });

  /**
   * Runs a command; every failure becomes one stderr line and its exit code, plus with --json a JSON
   * document (or, for --persist, whose output is a JSON line per event, a `failed` event).
   */
  const run = async (json: boolean | 'lines', command: () => Promise<CommandResult | number>): Promise<void> => {
    try {
      const result = await command();
      if (typeof result === 'number') {
        deps.setExitCode(result);
        return;
      }
      printResult(deps.output, result, json === true);
      deps.setExitCode(result.exitCode);
    } catch (error) {
      const failure = toClientError(error);
      const detail = { Message: failure.message, ...(failure.code === undefined ? {} : { Code: failure.code }) };
      if (json === 'lines') {
        const event = {
          Time: new Date(deps.clock.now()).toISOString(),
          Event: 'failed',
          ExitCode: failure.exitCode,
          ...detail,
        };
        deps.output.stdout(`${JSON.stringify(event)}\n`);
      } else if (json) {
        const document = { OK: false, ExitCode: failure.exitCode, Error: detail };
        deps.output.stdout(`${JSON.stringify(document, null, 2)}\n`);
      }
      deps.output.stderr(`postern-client: ${failure.message}\n`);
      deps.setExitCode(failure.exitCode);
    }
  };

  const program = new Command('postern-client')
    .description(
      'Signs this machine in to a Postern server with an API key and opens its network access (knocs) for as long as needed.',
    )
    .version(CLIENT_VERSION, '-v, --version', 'print the version')
    .option('--config <path>', `config file (default: $${CONFIG_ENV}, else see below)`)
    .option(
      '--session-file <path>',
      'where login saves the session for status and logout (default: session.json beside the config file)',
    )
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (text) => deps.output.stdout(text),
      writeErr: (text) => deps.output.stderr(text),
      outputError: (text, write) => write(`postern-client: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError('(postern-client --help lists the commands and flags)')
    // Usage errors end through the exit-code table (1), not commander's own process.exit.
    .exitOverride()
    .addHelpText('after', moreHelp());

  program
    .command('init')
    .description('write the config file (and with --key-stdin the key file), each with mode 600')
    .requiredOption('--server <url>', 'the Postern server, https://postern.example')
    .option('--key-file <path>', 'the key file to use (default: "key" beside the config file)')
    .option('--key-stdin', 'read the API key from standard input and write it to the key file')
    .option(
      '--knoc <name-or-id>',
      'a knoc login asks for by default (repeatable; default: all the user may use)',
      collect,
    )
    .option('--force', 'replace an existing config file and key file')
    .addHelpText('after', exitCodeHelp())
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<InitFlags>();
      await run(false, () =>
        runInit(deps.readStdin, {
          configFile: configFilePath(flags.config, deps.env),
          server: flags.server,
          keyFile: flags.keyFile,
          keyStdin: flags.keyStdin === true,
          force: flags.force === true,
          knocs: flags.knoc ?? [],
          sessionFile: flags.sessionFile,
        }),
      );
    });

  program
    .command('login')
    .description('sign in with the API key, ask for the knocs and wait until they are granted')
    .option(
      '--knoc <name-or-id>',
      'a knoc to open, by exact name or ID (repeatable; default: the config\'s "knocs", else all the user may use)',
      collect,
    )
    .option(
      '--timeout <seconds>',
      `how long to wait for the grants (default: ${DEFAULT_GRANT_TIMEOUT_MS / 1000})`,
      seconds(1, 3600),
    )
    .option('--persist', 'keep the access open until SIGTERM or SIGINT, then log out')
    .addOption(
      new Option(
        '--interval <seconds>',
        `with --persist: how often to check (default: ${DEFAULT_PERSIST_INTERVAL_MS / 1000}, at least ${MIN_PERSIST_INTERVAL_MS / 1000})`,
      ).argParser(seconds(MIN_PERSIST_INTERVAL_MS / 1000, 86_400)),
    )
    .option('--json', 'print JSON: one document, or with --persist one line per event')
    .option('--server <url>', `the server, instead of the config file's (or $${SERVER_ENV})`)
    .option('--key-file <path>', "the key file, instead of the config file's")
    .addHelpText('after', exitCodeHelp())
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<LoginFlags>();
      const json = flags.json === true;
      await run(json && flags.persist === true ? 'lines' : json, async () => {
        if (flags.interval !== undefined && flags.persist !== true) throw usageError('--interval goes with --persist');
        const settings = loadSettings(flags, { requireServer: true, env: deps.env });
        const server = settings.server ?? '';
        const knocs = flags.knoc ?? settings.knocs;
        const readKey = () => readApiKey(settings.keyFile, deps.env);
        const timeoutMs = flags.timeout ?? DEFAULT_GRANT_TIMEOUT_MS;
        if (flags.persist !== true) {
          return runLogin(
            { apiFor, clock: deps.clock, readKey },
            { server, sessionFile: settings.sessionFile, knocs, timeoutMs },
          );
        }
        // Read the key now, so a missing or unreadable key file fails at once instead of in the loop.
        readKey();
        const emit = (event: Parameters<typeof eventText>[0]) =>
          deps.output.stdout(`${json ? eventJson(event, deps.clock.now()) : eventText(event, deps.clock.now())}\n`);
        return runPersist(
          { apiFor, clock: deps.clock, readKey, random: deps.random, emit, signal: deps.shutdownSignal() },
          {
            server,
            sessionFile: settings.sessionFile,
            knocs,
            intervalMs: flags.interval ?? DEFAULT_PERSIST_INTERVAL_MS,
            grantTimeoutMs: timeoutMs,
          },
        );
      });
    });

  program
    .command('status')
    .description("show the saved session's knocs, its end and the address the server sees")
    .option('--json', 'print one JSON document')
    .addHelpText('after', exitCodeHelp())
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<JsonFlags>();
      await run(flags.json === true, () =>
        runStatus(apiFor, loadSettings(flags, { requireServer: false, env: deps.env }).sessionFile),
      );
    });

  program
    .command('logout')
    .description('end the saved session, which revokes every grant made in it')
    .option('--json', 'print one JSON document')
    .addHelpText('after', exitCodeHelp())
    .action(async (_options: unknown, command: Command) => {
      const flags = command.optsWithGlobals<JsonFlags>();
      await run(flags.json === true, () =>
        runLogout(apiFor, loadSettings(flags, { requireServer: false, env: deps.env }).sessionFile),
      );
    });

  return program;
}
