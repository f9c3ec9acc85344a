import { ExitCode } from './exit-codes.js';

/**
 * A failure postern-client reports as one line on stderr and ends with `exitCode`. Every expected
 * failure becomes one of these (see failure-mapping.ts); anything else is an internal error.
 */
export class ClientError extends Error {
  override readonly name = 'ClientError';

  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** The server's `err.*` code behind it, when there is one (shown in --json output). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A usage or configuration problem (exit 1). */
export function usageError(message: string): ClientError {
  return new ClientError(message, ExitCode.Usage);
}
