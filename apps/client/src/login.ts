import type { Clock } from './clock.js';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { toClientError } from './failure-mapping.js';
import { requestGrants, settleGrants, type Refusal } from './grants.js';
import type { ApiKey } from './key-file.js';
import { resolveKnocs } from './knocs.js';
import { knocJson, knocLines, notGrantedProblem, whenText, type CommandResult } from './output.js';
import { ensureLicensed, logoutQuietly, previousSession, sessionRecord, type ApiFactory } from './session.js';
import { removeSession, saveSession } from './session-file.js';

/** How long `login` waits for its grants unless --timeout says otherwise. */
export const DEFAULT_GRANT_TIMEOUT_MS = 30_000;

export interface LoginDeps {
  apiFor: ApiFactory;
  clock: Clock;
  readKey: () => ApiKey;
}

export interface LoginOptions {
  server: string;
  sessionFile: string;
  /** Knoc names or IDs; empty: every knoc the user may use. */
  knocs: readonly string[];
  timeoutMs: number;
}

/**
 * `postern-client login`: signs in with the key, asks for a grant on each requested knoc that is not
 * already granted, and waits for them. The session is saved at once, so it can be ended even if this
 * run is killed; when not every knoc ends up granted the session is logged out again (a failed login
 * leaves no access open). A session saved by an earlier login is logged out at the end, after the
 * new one is in place.
 */
export async function runLogin(deps: LoginDeps, options: LoginOptions): Promise<CommandResult> {
  const { key } = deps.readKey();
  const api = deps.apiFor(options.server);
  const previous = previousSession(options.sessionFile);
  const signIn = await api.signIn(key);
  const saved = sessionRecord(api.server, signIn, deps.clock.now(), []);
  saveSession(options.sessionFile, saved);

  let result: CommandResult;
  try {
    const status = await api.status(saved.cookie);
    ensureLicensed(status);
    const targets = resolveKnocs(status.ACLs, options.knocs);
    saved.knocs = targets.map((target) => target.ACLID);
    saved.ends = status.Ends;
    saveSession(options.sessionFile, saved);
    const refusals = new Map<string, Refusal>();
    const entries = await requestGrants(api, saved.cookie, targets, refusals);
    const settled = await settleGrants({
      api,
      clock: deps.clock,
      cookie: saved.cookie,
      entries,
      refusals,
      timeoutMs: options.timeoutMs,
    });
    const address = settled.status?.CurrentAddress ?? status.CurrentAddress;
    const ends = settled.status?.Ends ?? status.Ends;
    const ok = settled.results.every((knoc) => knoc.ok);
    const lines = [
      `Signed in to ${api.server} as ${signIn.info.UserName}; the session ends ${whenText(ends)}.`,
      `Address: ${address}`,
      ...knocLines(settled.results),
    ];
    let sessionFile: string | null = options.sessionFile;
    if (ok) {
      saved.ends = ends;
      saveSession(options.sessionFile, saved);
      lines.push(`Session saved in ${options.sessionFile}; postern-client logout ends it.`);
    } else {
      sessionFile = (await endFailedSession(deps, options.sessionFile, saved)) ? null : options.sessionFile;
      lines.push(
        sessionFile === null
          ? 'Logged out again: not every knoc was granted.'
          : `Could not log out again; the session stays saved in ${options.sessionFile} until postern-client logout ends it.`,
      );
    }
    result = {
      exitCode: ok ? ExitCode.Ok : ExitCode.NotGranted,
      document: {
        OK: ok,
        ExitCode: ok ? ExitCode.Ok : ExitCode.NotGranted,
        Server: api.server,
        UserName: signIn.info.UserName,
        Name: signIn.info.Name,
        Address: address,
        SessionEnds: ends,
        SessionFile: sessionFile,
        Knocs: settled.results.map(knocJson),
      },
      lines,
      ...(ok ? {} : { problem: notGrantedProblem(settled.results) }),
    };
  } catch (error) {
    const failure = toClientError(error);
    const loggedOut = await endFailedSession(deps, options.sessionFile, saved);
    throw loggedOut
      ? failure
      : new ClientError(
          `${failure.message}; the session stays saved in ${options.sessionFile} until postern-client logout ends it`,
          failure.exitCode,
          failure.code,
        );
  } finally {
    if (previous !== null && previous.cookie !== saved.cookie) await logoutQuietly(deps.apiFor, previous);
  }
  return result;
}

/** Logs out a session whose login failed and forgets it; false when the server could not be told. */
async function endFailedSession(
  deps: LoginDeps,
  sessionFile: string,
  saved: Parameters<typeof logoutQuietly>[1],
): Promise<boolean> {
  if (!(await logoutQuietly(deps.apiFor, saved))) return false;
  removeSession(sessionFile);
  return true;
}
