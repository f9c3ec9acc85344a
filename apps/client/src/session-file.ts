import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { usageError } from './errors.js';
import { ensurePrivateDir, isCode, reason, writePrivateFile } from './private-file.js';

/**
 * A signed-in session as `login` leaves it for `status` and `logout`. It holds the session cookie,
 * which is as good as the key until the session ends, so the file is written with mode 0600.
 */
export const SavedSession = z.object({
  version: z.literal(1),
  /** The server the cookie belongs to; the later commands talk to it whatever the config says now. */
  server: z.string().min(1),
  /** The Cookie header value (`name=value`). */
  cookie: z.string().min(1),
  userName: z.string(),
  /** ISO instants: when the session was signed in, and when the server ends it. */
  signedInAt: z.string(),
  ends: z.string(),
  /** The ACL IDs of the knocs `login` asked for (what `status` reports on). */
  knocs: z.array(z.string()),
});
export type SavedSession = z.infer<typeof SavedSession>;

/** The saved session, or null when there is none. */
export function readSession(file: string): SavedSession | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (isCode(error, 'ENOENT')) return null;
    throw usageError(`cannot read the session file ${file}: ${reason(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = SavedSession.safeParse(json);
  if (!parsed.success) throw usageError(`${file} is not a session file postern-client wrote; delete it`);
  return parsed.data;
}

/** Saves the session (replacing any saved before), its directory created with mode 0700 if missing. */
export function saveSession(file: string, session: SavedSession): void {
  ensurePrivateDir(path.dirname(file));
  writePrivateFile(file, `${JSON.stringify(session, null, 2)}\n`, { replace: true });
}

/** Deletes the session file; a missing one is fine. */
export function removeSession(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch (error) {
    throw usageError(`cannot delete the session file ${file}: ${reason(error)}`);
  }
}
