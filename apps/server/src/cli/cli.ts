import { Command } from 'commander';
import type { Logger } from 'pino';
import { BOOTSTRAP_ADMIN_USERNAME, POSTERN_VERSION } from '@postern/protocol';
import { loadConfig, describeSettings, CONFIG_FILE_ENV } from '../config/config.js';
import { createLogger } from '../logger.js';
import { contextWithoutAgents, openPreparedStore, startServer } from '../server.js';
import { createAdminFromCli, resetAdminPassword } from '../admins/admins.service.js';
import { readPasswordFromStdin } from './read-stdin.js';
import { registerLicenceCommands } from '../licence/licence-cli.js';
import { registerBackupCommands } from './backup-cli.js';
import type { AppContext } from '../app-context.js';

/** However a stop goes, the process has ended this long after the stop signal. */
const STOP_DEADLINE_MS = 10_000;

const SETTINGS_HELP = [
  '',
  'Settings (environment variables; the same keys can sit in a JSON file named by ' + CONFIG_FILE_ENV + '):',
  ...describeSettings().map((s) => `  ${s.env.padEnd(26)} ${s.default === '' ? '(unset)' : `default ${s.default}`}`),
].join('\n');

/** The `postern` command line. Each action resolves when its work is done (serve: when stopped). */
export function buildCli(): Command {
  const program = new Command('postern')
    .description('Postern: just-in-time network access portal')
    .version(POSTERN_VERSION, '-v, --version')
    .addHelpText('after', SETTINGS_HELP)
    .showHelpAfterError()
    // Throw instead of exiting, so main decides the exit code (2 for a usage error, like bad settings).
    .exitOverride();

  program
    .command('serve', { isDefault: true })
    .description('start the portal (migrates the store and creates the first admin when needed)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const server = await startServer(config, logger);
      await waitForStopSignal();
      const started = performance.now();
      logger.info('stopping');
      const deadline = exitAfterStopDeadline(logger);
      await server.stop();
      deadline.stopped();
      logger.info({ ms: Math.round(performance.now() - started) }, 'stopped');
    });

  program
    .command('migrate')
    .description('apply pending store migrations and exit')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const store = await openPreparedStore(config, logger);
      await store.close();
      process.stdout.write(`${store.description} is up to date\n`);
    });

  const admin = program.command('admin').description('manage administrator accounts');
  admin
    .command('create')
    .description('create a local administrator; prints a generated password unless --password-stdin')
    .requiredOption('-u, --username <name>', 'sign-in name')
    .option('-n, --name <display name>', 'name shown in the console')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (options: { username: string; name?: string; passwordStdin?: boolean }) => {
      await withContext(async (ctx) => {
        const given = options.passwordStdin === true ? await readPasswordFromStdin() : undefined;
        const password = await createAdminFromCli(ctx, {
          userName: options.username,
          name: options.name ?? options.username,
          ...(given === undefined ? {} : { password: given }),
        });
        process.stdout.write(`Created admin "${options.username}".\n`);
        if (given === undefined) process.stdout.write(`Password (shown once): ${password}\n`);
      });
    });
  admin
    .command('reset-password')
    .description('set a new password for an administrator and end their sessions')
    .argument('[username]', 'sign-in name', BOOTSTRAP_ADMIN_USERNAME)
    .option('--password-stdin', 'read the new password from standard input')
    .action(async (userName: string, options: { passwordStdin?: boolean }) => {
      await withContext(async (ctx) => {
        const given = options.passwordStdin === true ? await readPasswordFromStdin() : undefined;
        const password = await resetAdminPassword(ctx, userName, given);
        process.stdout.write(`Reset the password of admin "${userName}"; their sessions have ended.\n`);
        if (given === undefined) process.stdout.write(`New password (shown once): ${password}\n`);
      });
    });

  registerBackupCommands(program);
  registerLicenceCommands(program, withContext);
  return program;
}

async function withContext(work: (ctx: AppContext) => Promise<void>): Promise<void> {
  const config = loadConfig();
  // Commands print their own results; only warnings and worse from the internals.
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
  const store = await openPreparedStore(config, logger);
  try {
    // The same key check as the server: a lost or wrong key stops the command before it seals anything.
    await work(await contextWithoutAgents(config, store, logger));
  } finally {
    await store.close();
  }
}

/**
 * The process ends within STOP_DEADLINE_MS of the stop signal, or at once on a second signal, whatever
 * holds it up (a store that does not answer, a handle left open): a restart on the same store must
 * never wait on it. The timer does not itself keep the process alive. SQLite's transactions and the
 * kernel's release of the data directory's lock make an exit at any point safe.
 */
function exitAfterStopDeadline(logger: Logger): { stopped(): void } {
  let stopped = false;
  const exit = (why: string) => {
    logger.error({ stopped }, why);
    process.exit(stopped ? 0 : 1);
  };
  const timer = setTimeout(
    () => exit(`still running ${STOP_DEADLINE_MS / 1000} s after the stop signal; exiting`),
    STOP_DEADLINE_MS,
  );
  timer.unref();
  const again = () => exit('second stop signal; exiting without waiting');
  process.once('SIGINT', again);
  process.once('SIGTERM', again);
  return {
    stopped: () => {
      stopped = true;
    },
  };
}

function waitForStopSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
