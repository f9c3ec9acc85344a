import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
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

const bundles = new Map<string, string>();

/**
 * The TypeScript entry point `entry` bundled into one ES module, built once per test process.
 *
 * Why not `node --import tsx <entry>`: tsx compiles and resolves a few hundred source files through
 * its loader hooks on every start, two to four seconds a process on a busy CI machine, and a test
 * file that starts a dozen processes spent most of its time there. The bundle is the same source
 * compiled by the same compiler (tsx is esbuild too): npm packages stay outside, loaded by Node as
 * usual, and each file keeps its own `import.meta.url`. So the process under test is still the real
 * command, started the way the shipped one is started: `node <file>`.
 */
export function sourceBundle(entry: string): string {
  let bundle = bundles.get(entry);
  if (bundle === undefined) {
    const script = path.join(import.meta.dirname, 'bundle-source.mjs');
    bundle = execFileSync(process.execPath, [script, entry], { cwd: REPO_ROOT, encoding: 'utf8' });
    bundles.set(entry, bundle);
  }
  return bundle;
}

/** Starts `node --conditions=source <entry bundled>` …args: a TypeScript entry point, from source. */
export function startSourceCommand(entry: string, args: string[], options: StartOptions): RunningProcess {
  const child = spawn(process.execPath, ['--conditions=source', sourceBundle(entry), ...args], {
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
