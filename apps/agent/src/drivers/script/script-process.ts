import { spawn } from 'node:child_process';

/** How a script run ended. */
export type ScriptEnd =
  | { kind: 'exited'; code: number; stderr: string }
  | { kind: 'signalled'; signal: NodeJS.Signals; stderr: string }
  | { kind: 'timedOut'; stderr: string };

export interface ScriptProcessOptions {
  program: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  timeoutMs: number;
  /** Only this much of stderr is kept (the end of it: where a failing script says why). */
  maxStderrBytes: number;
  /** The process group ids of running scripts; this run is in it while it runs. */
  running: Set<number>;
}

/** After SIGTERM, how long a timed-out script's process group gets before SIGKILL. */
const KILL_GRACE_MS = 2_000;
/** After the script exits, how long to wait for its output pipes (a leftover child may hold them). */
const PIPE_GRACE_MS = 1_000;

/**
 * Runs one script in its own process group, so a timeout stops it together with anything it started.
 * Standard output is read and dropped (it could hold the values of sensitive variables); the tail of
 * standard error is kept for the grant's error.
 */
export function runScript(options: ScriptProcessOptions): Promise<ScriptEnd> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.program, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = Buffer.alloc(0);
    let timedOut = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const pid = child.pid;
    if (pid !== undefined) options.running.add(pid);

    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > options.maxStderrBytes * 2) stderr = stderr.subarray(-options.maxStderrBytes);
    });
    const finish = (end: ScriptEnd | Error) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      if (pid !== undefined) options.running.delete(pid);
      child.stdout.destroy();
      child.stderr.destroy();
      if (end instanceof Error) reject(end);
      else resolve(end);
    };
    const text = () => stderr.subarray(-options.maxStderrBytes).toString('utf8');

    timers.push(
      setTimeout(() => {
        timedOut = true;
        signalGroup(pid, 'SIGTERM');
        timers.push(setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS));
      }, options.timeoutMs),
    );
    child.on('error', (error) => finish(error));
    child.on('exit', (code, signal) => {
      const end = (): ScriptEnd => {
        if (timedOut) return { kind: 'timedOut', stderr: text() };
        if (signal !== null) return { kind: 'signalled', signal, stderr: text() };
        return { kind: 'exited', code: code ?? 1, stderr: text() };
      };
      // Normally 'close' follows at once; a background child holding the pipes must not hold us.
      child.on('close', () => finish(end()));
      timers.push(setTimeout(() => finish(end()), PIPE_GRACE_MS));
      if (timedOut) signalGroup(pid, 'SIGKILL');
    });
  });
}

/** Stops the scripts in `running` and everything they started (the agent is shutting down). */
export function killScripts(running: ReadonlySet<number>): void {
  for (const pid of running) signalGroup(pid, 'SIGKILL');
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
