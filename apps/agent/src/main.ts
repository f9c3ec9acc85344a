#!/usr/bin/env node
import { CommanderError } from 'commander';
import { buildCli } from './cli.js';
import { ConfigError, EXIT_CONFIG_ERROR } from './config/config-error.js';

/**
 * Entry point of `postern-agent`. A problem the operator can fix ends with one line on stderr and
 * exit code 2; nothing here prints a stack trace. The exit code is set rather than forced, so the
 * logger finishes writing before the process ends.
 */
try {
  await buildCli().parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportFailure(error);
}

function reportFailure(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`postern-agent: ${error.message}\n`);
    return EXIT_CONFIG_ERROR;
  }
  // Commander has already printed help, the version or its usage error.
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_CONFIG_ERROR;
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`postern-agent: unexpected failure: ${message}\n`);
  return 1;
}
