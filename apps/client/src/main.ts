#!/usr/bin/env node
import { constants } from 'node:os';
import { CommanderError } from 'commander';
import { buildCli } from './cli.js';
import { systemClock } from './clock.js';
import { ExitCode } from './exit-codes.js';
import { processOutput } from './output.js';
import { readSecretLine } from './stdin.js';

/**
 * Entry point of `postern-client`. Every failure ends with one line on stderr and an exit code
 * from exit-codes.ts; nothing here prints a stack trace, not even for a fault of our own.
 */
const internalError = (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`postern-client: internal error: ${message}\n`);
  process.exit(ExitCode.Internal);
};
process.on('uncaughtException', internalError);
process.on('unhandledRejection', internalError);
// `postern-client status | head -1`: a closed pipe is no reason for a stack trace.
process.stdout.on('error', () => undefined);

/** First SIGTERM/SIGINT: stop gracefully (log out). A second one: exit at once. */
function shutdownSignal(): AbortSignal {
  const controller = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT'] as const) {
    process.on(name, () => {
      if (controller.signal.aborted) process.exit(128 + constants.signals[name]);
      controller.abort();
    });
  }
  return controller.signal;
}

try {
  await buildCli({
    output: processOutput,
    env: process.env,
    clock: systemClock,
    random: Math.random,
    readStdin: () => readSecretLine(),
    shutdownSignal,
    setExitCode: (code) => (process.exitCode = code),
  }).parseAsync(process.argv);
} catch (error) {
  // Commander has already printed the help, the version or its usage error.
  if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  else internalError(error);
}
