import type { UserStatus } from '@postern/protocol';
import type { PosternApi, SignIn } from './api-client.js';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { readSession, type SavedSession } from './session-file.js';

/** How long a logout on the way out may take: shutting down must not hang on a dead server. */
export const LOGOUT_TIMEOUT_MS = 5_000;

/** Makes the API client for a server (the saved session's server may differ from the config's). */
export type ApiFactory = (server: string) => PosternApi;

/** The session record to save for a fresh sign-in. */
export function sessionRecord(server: string, signIn: SignIn, now: number, knocs: readonly string[]): SavedSession {
  return {
    version: 1,
    server,
    cookie: signIn.cookie,
    userName: signIn.info.UserName,
    signedInAt: new Date(now).toISOString(),
    ends: signIn.info.Ends,
    knocs: [...knocs],
  };
}

/** Exit 6 when the installation or this user is not licensed (the server then lists no knocs). */
export function ensureLicensed(status: UserStatus): void {
  if (!status.Licensed) {
    throw new ClientError('Postern is not licensed: the installation has no valid licence', ExitCode.Licence);
  }
  if (!status.UserLicensed) {
    throw new ClientError(
      'this user is not licensed: the installation is over its licence user limit',
      ExitCode.Licence,
    );
  }
}

/**
 * The session saved before, if the file holds one. A file that cannot be read is left for the new
 * session to overwrite: it belongs to no session anyone can end any more.
 */
export function previousSession(file: string): SavedSession | null {
  try {
    return readSession(file);
  } catch {
    return null;
  }
}

/** Logs a session out, bounded in time; false when the server could not be told. */
export async function logoutQuietly(apiFor: ApiFactory, session: SavedSession): Promise<boolean> {
  try {
    await apiFor(session.server).logout(session.cookie, { signal: AbortSignal.timeout(LOGOUT_TIMEOUT_MS) });
    return true;
  } catch {
    return false;
  }
}
