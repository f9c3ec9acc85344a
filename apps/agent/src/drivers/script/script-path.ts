import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/** Raised when a backend's Command may not run; the message says why, for the grant's error. */
export class ScriptRefusedError extends Error {
  override name = 'ScriptRefusedError';
}

/**
 * The real path of the program a script backend names, checked so that only what the host's
 * administrator put in the scripts directory can run: whoever may edit knocs in Postern must not
 * be able to run arbitrary programs as the agent (often root) on this host.
 *
 * - `Command` is a name or relative path inside `directory`, or an absolute path inside it; `..`
 *   is refused outright, and the resolved real path (symlinks followed) must still be inside the
 *   directory's real path.
 * - The directory and the program must not be writable by group or others, and must belong to root
 *   or to the agent's own user (as sshd's StrictModes asks of key files).
 * - The program must be a regular, executable file.
 */
export async function resolveScript(command: string, directory: string): Promise<string> {
  if (command.trim() === '' || command.includes('\0')) throw new ScriptRefusedError('the script command is empty');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(command)) {
    throw new ScriptRefusedError(`script ${command} is a URL; this agent runs programs from ${directory} only`);
  }
  if (command.split(/[\\/]/).includes('..')) {
    throw new ScriptRefusedError(`script ${command} may not contain ".." (scripts run only from ${directory})`);
  }
  const realDirectory = await realPathOf(directory, `the scripts directory ${directory}`);
  await checkOwnership(realDirectory, `the scripts directory ${directory}`);

  const candidate = path.isAbsolute(command) ? path.normalize(command) : path.join(directory, command);
  if (!isInside(candidate, path.resolve(directory)) && !isInside(candidate, realDirectory)) {
    throw new ScriptRefusedError(`script ${command} is outside the scripts directory ${directory}`);
  }
  const real = await realPathOf(candidate, `script ${command}`);
  if (!isInside(real, realDirectory)) {
    throw new ScriptRefusedError(`script ${command} resolves to ${real}, outside the scripts directory ${directory}`);
  }
  const stats = await stat(real);
  if (!stats.isFile()) throw new ScriptRefusedError(`script ${command} is not a regular file`);
  await checkOwnership(real, `script ${command}`);
  try {
    await access(real, constants.X_OK);
  } catch {
    throw new ScriptRefusedError(`script ${command} is not executable (chmod +x)`);
  }
  return real;
}

function isInside(file: string, directory: string): boolean {
  const relative = path.relative(directory, file);
  const escapes = relative === '..' || relative.startsWith(`..${path.sep}`);
  return relative !== '' && !escapes && !path.isAbsolute(relative);
}

async function realPathOf(file: string, what: string): Promise<string> {
  try {
    return await realpath(file);
  } catch (error) {
    const code = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new ScriptRefusedError(code === 'ENOENT' ? `${what} does not exist` : `${what} cannot be used (${code})`);
  }
}

async function checkOwnership(file: string, what: string): Promise<void> {
  const stats = await stat(file);
  const mode = stats.mode & 0o777;
  if ((mode & 0o022) !== 0) {
    throw new ScriptRefusedError(`${what} is writable by group or others (mode ${mode.toString(8)}); run chmod go-w`);
  }
  const agentUid = process.getuid?.();
  if (stats.uid !== 0 && stats.uid !== agentUid) {
    throw new ScriptRefusedError(`${what} must belong to root or to the agent's user (owner uid ${stats.uid})`);
  }
}
