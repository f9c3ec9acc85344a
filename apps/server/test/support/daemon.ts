import { execFile, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'vitest';
import { capture, type RunningProcess } from '@postern/test-support';

/**
 * What the throwaway servers of the tests (slapd, SimpleSAMLphp under PHP) share: skipping when a
 * tool is missing, running tools, starting the server as our own child that dies with the test
 * process, and stopping it by PID.
 */

/** util-linux's setpriv, when present, makes the kernel kill the server if the test process dies. */
const SETPRIV = '/usr/bin/setpriv';

const execFileAsync = promisify(execFile);

/** CI sets this: a missing prerequisite is then a failure, never a silent skip. */
const SYSTEM_TESTS_REQUIRED = process.env.POSTERN_REQUIRE_SYSTEM_TESTS === '1';

/**
 * Skips the test (saying why) when `missing` names something this machine lacks, or fails it when
 * POSTERN_REQUIRE_SYSTEM_TESTS=1.
 */
export function requirePrerequisite(context: TestContext, missing: string | null): void {
  if (missing === null) return;
  if (SYSTEM_TESTS_REQUIRED) throw new Error(`system test prerequisite missing: ${missing}`);
  context.skip(`skipped: needs ${missing}`);
}

/** Runs a tool to its end (with a deadline); its stderr explains a failure. */
export async function run(command: string, args: string[]): Promise<void> {
  try {
    await execFileAsync(command, args, { timeout: 30_000 });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(`${path.basename(command)} ${args[0] ?? ''} failed: ${typeof stderr === 'string' ? stderr : ''}`, {
      cause: error,
    });
  }
}

/** Children still running, killed if the test process exits without stopping them. */
const running = new Set<RunningProcess>();
let exitHookInstalled = false;

/**
 * Starts `command` as our child, its output captured. It must stay in the foreground as one process,
 * so its PID is all there is to stop. setpriv execs it in place (same PID) after asking for SIGKILL
 * when our process ends, even by SIGKILL itself.
 */
export function launch(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): RunningProcess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const server of running) {
        try {
          if (server.child.pid !== undefined) process.kill(server.child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    });
  }
  const [file, fileArgs] = isExecutable(SETPRIV)
    ? [SETPRIV, ['--pdeathsig', 'KILL', '--', command, ...args]]
    : [command, args];
  const child = spawn(file, fileArgs, {
    cwd: options.cwd,
    ...(options.env === undefined ? {} : { env: options.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const server = capture(child);
  running.add(server);
  void server.finished.finally(() => running.delete(server)).catch(() => undefined);
  return server;
}

/** Whether the server has exited yet, for start-up checks that must not wait on a dead process. */
export function exitWatcher(server: RunningProcess): () => boolean {
  let exited = false;
  void server.finished.then(
    () => (exited = true),
    () => (exited = true),
  );
  return () => exited;
}

/** SIGTERM by PID, then SIGKILL if the server has not ended within the deadline. */
export async function stopProcess(server: RunningProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    await server.finished.catch(() => undefined);
    return;
  }
  process.kill(child.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    server.finished.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]);
  clearTimeout(timer);
  if (!ended) {
    process.kill(child.pid, 'SIGKILL');
    await server.finished.catch(() => undefined);
  }
}

/** Stops the server (by PID) and removes its directory. Safe to call twice. */
export function stopAndRemove(server: RunningProcess, dir: string): () => Promise<void> {
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= (async () => {
      await stopProcess(server);
      await rm(dir, { recursive: true, force: true });
    })());
}

/** The openssl on PATH, or null. */
export function openssl(): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    const candidate = path.join(dir, 'openssl');
    if (dir !== '' && isExecutable(candidate)) return candidate;
  }
  return null;
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
