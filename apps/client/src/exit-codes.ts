/**
 * Every exit code postern-client ends with. Scripts branch on these (`case $?`), so a number never
 * changes meaning; the `--help` epilogue and docs/client.md list the same table.
 */
export const ExitCode = {
  /** Done: signed in and every requested knoc granted, the session is running, logged out. */
  Ok: 0,
  /** A wrong flag, a missing or invalid config file, key file or session file. */
  Usage: 1,
  /** The server refused the API key (unknown, revoked, not scoped user.auth, or not an API-key user). */
  KeyRefused: 2,
  /** The API key has expired. */
  KeyExpired: 3,
  /** The API key may not be used from this machine's address. */
  AddressNotAllowed: 4,
  /** A --knoc names no knoc the user has (or names several). */
  KnocUnknown: 5,
  /** The installation, or this user, is not licensed. */
  Licence: 6,
  /** A requested knoc did not become granted: an error on the device, its agent offline, or the timeout. */
  NotGranted: 7,
  /** The server could not be reached, or answered with a server error (5xx). */
  Unreachable: 8,
  /** The key's user is disabled or has expired. */
  AccountDisabled: 9,
  /** Too many sign-ins: the server asked to wait (Retry-After). */
  Throttled: 10,
  /** No session saved, or the saved session has ended. */
  NoSession: 11,
  /** A fault in postern-client itself (or an answer it does not understand). */
  Internal: 70,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** One line per exit code, in order, for `--help` and the documentation. */
export const EXIT_CODE_DESCRIPTIONS: readonly (readonly [ExitCode, string])[] = [
  [ExitCode.Ok, 'ok'],
  [ExitCode.Usage, 'usage or configuration error'],
  [ExitCode.KeyRefused, 'API key refused (unknown, revoked, wrong scope, or not an API-key user)'],
  [ExitCode.KeyExpired, 'API key expired'],
  [ExitCode.AddressNotAllowed, 'API key not allowed from this address'],
  [ExitCode.KnocUnknown, 'knoc unknown (or ambiguous)'],
  [ExitCode.Licence, 'not licensed (installation or user)'],
  [ExitCode.NotGranted, 'a knoc was not granted (error, agent offline, timeout)'],
  [ExitCode.Unreachable, 'server unreachable or server error (5xx)'],
  [ExitCode.AccountDisabled, 'account disabled or expired'],
  [ExitCode.Throttled, 'throttled (too many sign-ins; see Retry-After)'],
  [ExitCode.NoSession, 'no session saved, or the session has ended'],
  [ExitCode.Internal, 'internal error'],
];

/** The exit-code table as `--help` shows it. */
export function exitCodeHelp(): string {
  return [
    '',
    'Exit codes:',
    ...EXIT_CODE_DESCRIPTIONS.map(([code, text]) => `  ${String(code).padStart(2)}  ${text}`),
  ].join('\n');
}
