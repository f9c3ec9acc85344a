#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildCli } from './cli/cli.js';
import { ConfigError, EXIT_CONFIG_ERROR } from './config/config-error.js';
import { MigrationFailedError, StoreTooNewError } from './store/migrate.js';
import { ApiError } from './errors.js';
import { StoreInUseError } from './store/single-process-lock.js';
import { BackupError } from './backup/backup-file.js';

/**
 * Entry point of the `postern` command. Problems the operator can fix (settings, command line, a store
 * from a newer release, a SQLite store another server holds) end with one line and exit code 2; a
 * failed migration, backup or restore with one line and exit code 1. Nothing here prints a stack trace.
 */
try {
  await buildCli().parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportFailure(error);
}

function reportFailure(error: unknown): number {
  if (error instanceof CommanderError) {
    // Commander has printed help, the version or what was wrong with the command line already.
    return error.exitCode === 0 ? 0 : EXIT_CONFIG_ERROR;
  }
  if (error instanceof ConfigError || error instanceof StoreTooNewError || error instanceof StoreInUseError) {
    process.stderr.write(`postern: ${error.message}\n`);
    return EXIT_CONFIG_ERROR;
  }
  if (error instanceof ApiError) {
    process.stderr.write(`postern: ${error.extra ?? error.code}\n`);
    return 1;
  }
  if (error instanceof MigrationFailedError || error instanceof BackupError) {
    process.stderr.write(`postern: ${error.message}\n`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`postern: unexpected failure: ${message}\n`);
  return 1;
}
