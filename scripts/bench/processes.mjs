// Child processes for the benchmark: started with captured output, stopped by their own PID only.
import { execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** PIDs of every process the benchmark started and has not seen end; killed by {@link killStarted}. */
const started = new Set();

/**
 * Starts a long-running command; output is kept (the last 64 KiB) for error messages and waits.
 * Returns { child, pid, output(), waitFor(pattern, ms), exited, stop(signal) }.
 */
export function startProcess(argv, { env, cwd, stdin = 'ignore' } = {}) {
  const [file, ...args] = argv;
  const child = spawn(file, args, { env, cwd, stdio: [stdin, 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk) => {
    output = (output + chunk).slice(-65_536);
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  if (child.pid !== undefined) started.add(child.pid);
  const exited = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, error }));
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  let ended = false;
  void exited.then(() => {
    ended = true;
    started.delete(child.pid);
  });
  return {
    child,
    pid: child.pid,
    output: () => output,
    exited,
    get running() {
      return !ended;
    },
    /** Resolves when the output (stdout and stderr together) matches `pattern`. */
    waitFor(pattern, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) {
            cleanup();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${argv.join(' ')}: no ${pattern} within ${timeoutMs} ms; output:\n${output}`));
        }, timeoutMs);
        const onExit = () => {
          // Output may still arrive in the same turn; check once more before failing.
          setImmediate(() => {
            if (pattern.test(output)) return check();
            cleanup();
            reject(new Error(`${argv.join(' ')} ended before printing ${pattern}; output:\n${output}`));
          });
        };
        const cleanup = () => {
          clearTimeout(timer);
          child.stdout.off('data', check);
          child.stderr.off('data', check);
          child.off('close', onExit);
        };
        child.stdout.on('data', check);
        child.stderr.on('data', check);
        child.on('close', onExit);
        check();
      });
    },
    /** Sends `signal` to this process by its PID and waits (at most 10 s, then SIGKILL) for it to end. */
    async stop(signal = 'SIGTERM') {
      if (ended || child.pid === undefined) return exited;
      signalPid(child.pid, signal);
      const timer = setTimeout(() => signalPid(child.pid, 'SIGKILL'), 10_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

function signalPid(pid, signal) {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** SIGKILLs every process the benchmark started that is still running (by PID). */
export function killStarted() {
  for (const pid of started) signalPid(pid, 'SIGKILL');
  started.clear();
}

/** Runs a command to completion; rejects with its stderr when it fails. */
export function run(argv, input) {
  const [file, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${argv.join(' ')} failed: ${stderr.trim() || error.message}`));
      else resolve({ stdout, stderr });
    });
    if (input !== undefined) child.stdin.end(input);
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` (sync or async) every `intervalMs` until it is truthy; rejects after `timeoutMs`. */
export async function waitUntil(condition, what, timeoutMs = 15_000, intervalMs = 50) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
