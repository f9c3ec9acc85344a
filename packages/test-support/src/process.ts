import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT } from './paths.js';
import { waitFor } from './wait.js';

/** How a finished process ended and what it wrote. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running command whose output is captured as it arrives. */
export interface RunningProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  finished: Promise<Finished>;
  /** Waits (with a deadline) until stdout or stderr matches `pattern`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Sends SIGTERM to this process (by its PID) and waits for it to end. */
  stop(): Promise<Finished>;
}

export interface StartOptions {
  env: NodeJS.ProcessEnv;
  /** Text written to standard input, which is then closed. */
  input?: string;
  cwd?: string;
}

/** Starts `node --conditions=source --import tsx <entry> …args`: a TypeScript entry point, from source. */
export function startSourceCommand(entry: string, args: string[], options: StartOptions): RunningProcess {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', entry, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  return capture(child);
}

/** Captures a child's output and exposes helpers to wait on it. */
export function capture(child: ChildProcess): RunningProcess {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const finished = new Promise<Finished>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  let exited = false;
  void finished.then(() => (exited = true));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    finished,
    waitForOutput: (pattern, timeoutMs) =>
      waitFor(
        () => {
          if (exited && !pattern.test(stdout + stderr)) {
            throw new Error(`process exited before printing ${pattern}:\n${stdout}\n${stderr}`);
          }
          return pattern.test(stdout + stderr);
        },
        `output matching ${pattern}`,
        timeoutMs,
      ),
    stop: async () => {
      if (!exited && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
      return finished;
    },
  };
}

/** The test runner's environment without variables that start with any of `prefixes`, plus `extra`. */
export function cleanEnv(prefixes: string[], extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const inherited = Object.entries(process.env).filter(([name]) => !prefixes.some((prefix) => name.startsWith(prefix)));
  return { ...Object.fromEntries(inherited), ...extra };
}
