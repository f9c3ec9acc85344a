import path from 'node:path';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import { loadConfig, type PosternConfig } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import { prepareDataDir } from '../config/data-dir.js';
import { createLogger } from '../logger.js';
import { contextWithoutAgents, openPreparedStore } from '../server.js';
import { openStore } from '../store/store.js';
import { takeProcessLock } from '../store/single-process-lock.js';
import { secretKeyFilePath } from '../secrets/secret-key.js';
import { backupSqlite, restoreSqlite } from '../backup/sqlite-backup.js';
import { backupPostgres, restorePostgres } from '../backup/postgres-backup.js';
import { BackupError } from '../backup/backup-file.js';

/** `postern backup <file>` and `postern restore <file>`; see docs/install-and-backup.md. */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description('copy the store to a new file (mode 0600), consistent while servers run; the secret key is not in it')
    .argument('<file>', 'the backup file to create')
    .action(async (file: string) => {
      const config = loadConfig();
      const target = path.resolve(file);
      if (config.store.kind === 'sqlite') {
        await backupSqlite(config.store.file, target);
      } else {
        const store = await openStore(config.store, { logger: commandLogger(config) });
        try {
          await backupPostgres(store, config.store.url, target);
        } finally {
          await store.close();
        }
      }
      process.stdout.write(`Backed up the store to ${target}.\n${secretKeyReminder(config)}\n`);
    });

  program
    .command('restore')
    .description('replace the store with a backup, then migrate it; stop the server first')
    .argument('<file>', 'a file made by postern backup')
    .option('--force', 'PostgreSQL: restore even while Postern servers are connected to the database')
    .action(async (file: string, options: { force?: boolean }) => {
      const config = loadConfig();
      const logger = commandLogger(config);
      const source = path.resolve(file);
      if (config.store.kind === 'sqlite') {
        prepareDataDir(config.dataDir);
        // Held until the restored store is migrated: no server can start on a half-restored store.
        const lock = takeProcessLock(config.dataDir, 'restore');
        try {
          await restoreSqlite(source, config.store.file);
          await migrateAndCheckKey(config, logger);
        } finally {
          lock.release();
        }
      } else {
        const store = await openStore(config.store, { logger });
        try {
          await restorePostgres(store, config.store.url, source, { force: options.force === true });
        } finally {
          await store.close();
        }
        await migrateAndCheckKey(config, logger);
      }
      process.stdout.write(`Restored the store from ${source} and migrated it.\n`);
    });
}

/** Commands print their own results; only warnings and worse from the internals. */
function commandLogger(config: PosternConfig): Logger {
  return createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
}

/**
 * Brings the restored store to this release's schema and proves the configured secret key opens it,
 * so a restore without its key is found now rather than at the server's next start.
 */
async function migrateAndCheckKey(config: PosternConfig, logger: Logger): Promise<void> {
  const store = await openPreparedStore(config, logger);
  try {
    await contextWithoutAgents(config, store, logger);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new BackupError(
      `the store is restored and migrated, but its secret key is not there: ${error.message}; ` +
        'restore the key kept with this backup',
    );
  } finally {
    await store.close();
  }
}

/** The secret key is never copied into a backup: say where it is and why it must be kept too. */
function secretKeyReminder(config: PosternConfig): string {
  const where =
    config.secretKey === null
      ? `the key file ${secretKeyFilePath(config.dataDir)}`
      : 'the POSTERN_SECRET_KEY value in the server settings';
  return (
    `The secret key is not in the backup: keep a copy of ${where} with it, stored apart from the backup. ` +
    'Without the key, the secrets sealed in the store (two-factor seeds, SAML keys, agent tokens) cannot be opened.'
  );
}
