import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { isSessionEnded } from './failure-mapping.js';
import { knocResult } from './grants.js';
import { knocJson, knocLines, whenText, type CommandResult } from './output.js';
import type { ApiFactory } from './session.js';
import { readSession, removeSession } from './session-file.js';

/**
 * `postern-client status`: asks the server about the saved session and reports each knoc `login`
 * asked for. Exit 0 while the session runs (whatever its knocs show), 11 when there is none or it
 * has ended (the dead session file is then deleted).
 */
export async function runStatus(apiFor: ApiFactory, sessionFile: string): Promise<CommandResult> {
  const saved = readSession(sessionFile);
  if (saved === null) {
    throw new ClientError(`no session saved in ${sessionFile} (postern-client login starts one)`, ExitCode.NoSession);
  }
  let status;
  try {
    status = await apiFor(saved.server).status(saved.cookie);
  } catch (error) {
    if (!isSessionEnded(error)) throw error;
    removeSession(sessionFile);
    throw new ClientError(
      `the session saved in ${sessionFile} has ended (logged out, expired, or ended by an administrator); postern-client login starts a new one`,
      ExitCode.NoSession,
    );
  }
  const results = saved.knocs.map((id) =>
    knocResult(
      id,
      id,
      status.ACLs.find((entry) => entry.ACLID === id),
      undefined,
    ),
  );
  const licensed = status.Licensed && status.UserLicensed;
  return {
    exitCode: ExitCode.Ok,
    document: {
      OK: true,
      ExitCode: ExitCode.Ok,
      Running: true,
      Server: saved.server,
      UserName: status.UserName,
      Address: status.CurrentAddress,
      SessionEnds: status.Ends,
      Licensed: licensed,
      SessionFile: sessionFile,
      Knocs: results.map(knocJson),
    },
    lines: [
      `Session of ${status.UserName} on ${saved.server}: running, ends ${whenText(status.Ends)}.`,
      `Address: ${status.CurrentAddress}`,
      ...(licensed ? [] : ['Postern is not licensed for this user: no knoc can be granted.']),
      ...knocLines(results),
    ],
  };
}

/**
 * `postern-client logout`: ends the saved session, and with it every grant made in it, then deletes
 * the session file. Nothing saved is no failure (a script's cleanup step may run twice). When the
 * server cannot be reached the file is kept, so the logout can be tried again.
 */
export async function runLogout(apiFor: ApiFactory, sessionFile: string): Promise<CommandResult> {
  const saved = readSession(sessionFile);
  if (saved === null) {
    return {
      exitCode: ExitCode.Ok,
      document: { OK: true, ExitCode: ExitCode.Ok, LoggedOut: false, SessionFile: sessionFile },
      lines: [`No session saved in ${sessionFile}; nothing to log out.`],
    };
  }
  await apiFor(saved.server).logout(saved.cookie);
  removeSession(sessionFile);
  return {
    exitCode: ExitCode.Ok,
    document: {
      OK: true,
      ExitCode: ExitCode.Ok,
      LoggedOut: true,
      Server: saved.server,
      UserName: saved.userName,
      SessionFile: sessionFile,
    },
    lines: [`Logged out ${saved.userName} from ${saved.server}; the access granted in the session has been revoked.`],
  };
}
