import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** How a command ended and what it wrote. */
export interface CommandResult {
  /** The exit code, or null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to standard input, which is then closed. */
  input?: string;
  /** An open file descriptor handed to the program as its standard input (instead of `input`). */
  stdinFd?: number;
  /** Killed (SIGKILL) after this long. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `argv[0]` with the rest as its arguments: no shell, so nothing in an argument is ever
 * interpreted. Resolves with the exit status whatever it is; rejects only when the program cannot
 * be started at all (not found, not executable).
 */
export function runCommand(argv: readonly string[], options: RunOptions = {}): Promise<CommandResult> {
  const [file, ...args] = argv;
  if (file === undefined) return Promise.reject(new Error('no command given'));
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      stdio: [options.stdinFd ?? (options.input === undefined ? 'ignore' : 'pipe'), 'pipe', 'pipe'],
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: 'SIGKILL' }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (options.input !== undefined && options.stdinFd === undefined && child.stdin !== null) {
      // A program that exits without reading all its input closes the pipe; its exit code tells the rest.
      child.stdin.on('error', () => undefined);
      child.stdin.end(options.input);
    }
  });
}

/** Directories searched after PATH: a service's PATH often lacks the sbin directories ipset lives in. */
const SYSTEM_BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The absolute path of an executable named `name` in PATH or the system directories, or null. */
export function findExecutable(name: string, envPath = process.env.PATH ?? ''): string | null {
  const dirs = [...envPath.split(path.delimiter).filter((dir) => path.isAbsolute(dir)), ...SYSTEM_BIN_DIRS];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return null;
}

/** True when the agent runs as root. */
export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}
