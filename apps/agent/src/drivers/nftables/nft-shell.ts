import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** One line for the shell; `output`: it prints one JSON line on stdout when it succeeds (a listing). */
export interface NftShellCommand {
  line: string;
  output?: boolean;
}

/** What nft said about one command: its stderr ('' when it succeeded) and, for a listing, its stdout line. */
export interface NftShellAnswer {
  stderr: string;
  /** The listing's JSON line; null for a command without output, or one that failed. */
  stdout: string | null;
}

/** What the driver needs of a shell: {@link NftShell}, or a fake in tests. */
export interface NftShellPort {
  /** Rejects when the shell itself failed: the caller then does the same work by spawning nft. */
  run(commands: readonly NftShellCommand[]): Promise<NftShellAnswer[]>;
  close(): Promise<void>;
}

export interface NftShellOptions {
  /** No command may take longer than this (the whole call, in fact): the shell is then killed. */
  timeoutMs: number;
  /** After this many lines the process is replaced (its history grows by every line; see below). */
  linesPerProcess?: number;
}

type Child = ChildProcessByStdio<Writable, Readable, Readable>;

interface Waiter {
  token: string;
  output: boolean;
  /** The command's stderr, once its marker arrived. */
  stderr: string | null;
  resolve: (answer: NftShellAnswer) => void;
  reject: (error: Error) => void;
}

const MARKER = 'postern-sync';
const DEFAULT_LINES_PER_PROCESS = 10_000;
/** How long a stopped shell gets to end on SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 1_000;
/** How long close() waits for the process to be gone. */
const CLOSE_WAIT_MS = 3_000;
/** The `^^^` line nft prints under a command it could not parse or run, pointing at the culprit. */
const CARET_LINE = /^\s*[\^~]+\s*$/;

/**
 * A long-lived `nft -j -i` (nft's interactive mode, JSON output) for small, latency-critical batches:
 * starting nft costs several milliseconds, far more than the kernel needs for the change.
 *
 * nft reads one command a line: a JSON document `{"nftables":[…]}` is one atomic transaction, a
 * listing prints its JSON document as one line on stdout, and an error goes to stderr without saying
 * which command it belongs to. So after every command the shell is sent a marker line that always
 * fails at parse time, before touching the kernel, and whose error echoes it:
 * `postern-sync psync-<n>` → "Error: syntax error, unexpected newline", the line, a `^` line.
 * Whatever stderr holds before a marker's echo (less the marker's own error line) is the error of
 * the command before it. A listing that succeeded is answered by the next stdout line; one that
 * failed prints none.
 *
 * nft keeps every line it read in its history (libedit), in memory, and writes it to
 * $HOME/.nft.history when its input ends. So the process runs with HOME=/nonexistent, is stopped
 * with SIGTERM (which it does not catch: nothing is written) and is replaced after
 * `linesPerProcess` lines, which bounds its memory.
 */
export class NftShell implements NftShellPort {
  readonly #command: readonly string[];
  readonly #timeoutMs: number;
  readonly #linesPerProcess: number;
  #child: Child | null = null;
  #exited: Promise<void> = Promise.resolve();
  #stderr = '';
  #stdout = '';
  #stdoutLines: string[] = [];
  #linesSent = 0;
  #sequence = 0;
  #closed = false;
  readonly #waiting: Waiter[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  /** `command`: the argv that runs nft (`['nft']`, `['sudo', '-n', 'nft']`, `['ip', 'netns', 'exec', ns, 'nft']`). */
  constructor(command: readonly string[], options: NftShellOptions) {
    this.#command = command;
    // Never 0: a shell that never times out would hold every later call.
    this.#timeoutMs = Math.max(1, options.timeoutMs);
    this.#linesPerProcess = options.linesPerProcess ?? DEFAULT_LINES_PER_PROCESS;
  }

  /** Runs the commands in order, one call at a time, and returns nft's answer to each. */
  run(commands: readonly NftShellCommand[]): Promise<NftShellAnswer[]> {
    const result = this.#queue.then(() => this.#runNow(commands));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Ends the shell process and resolves once it is gone (or did not go within a few seconds). A
   * closed shell starts no process again: every call rejects.
   */
  async close(): Promise<void> {
    this.#closed = true;
    const exited = this.#exited;
    this.#stop(new Error('the nft shell was closed'));
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, CLOSE_WAIT_MS);
    });
    await Promise.race([exited, givenUp]);
    clearTimeout(timer);
  }

  async #runNow(commands: readonly NftShellCommand[]): Promise<NftShellAnswer[]> {
    if (this.#closed) throw new Error('the nft shell was closed');
    if (commands.some((command) => !isOneLine(command.line))) {
      throw new Error('an nft shell command must be one non-empty line without control characters');
    }
    if (this.#child !== null && this.#linesSent >= this.#linesPerProcess) {
      this.#stop(new Error('the nft shell was replaced'));
    }
    const child = this.#start();
    const answers = commands.map((command) => {
      this.#sequence += 1;
      const token = `psync-${this.#sequence}`;
      const answer = new Promise<NftShellAnswer>((resolve, reject) =>
        this.#waiting.push({ token, output: command.output === true, stderr: null, resolve, reject }),
      );
      return { text: `${command.line}\n${MARKER} ${token}\n`, answer };
    });
    this.#linesSent += 2 * commands.length;
    // Every command of an earlier call had its answer: anything left (the last marker's `^` line)
    // is not an answer to this call.
    this.#stdoutLines = [];
    this.#stderr = '';
    child.stdin.write(answers.map(({ text }) => text).join(''));
    const timer = setTimeout(
      () => this.#stop(new Error(`nft did not answer within ${this.#timeoutMs} ms`), child),
      this.#timeoutMs,
    );
    try {
      return await Promise.all(answers.map(({ answer }) => answer));
    } finally {
      clearTimeout(timer);
    }
  }

  #start(): Child {
    if (this.#child !== null) return this.#child;
    const [file, ...args] = this.#command;
    if (file === undefined) throw new Error('no nft command');
    const child = spawn(file, [...args, '-j', '-i'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, HOME: '/nonexistent' },
    });
    this.#child = child;
    this.#stderr = '';
    this.#stdout = '';
    this.#stdoutLines = [];
    this.#linesSent = 0;
    this.#exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (child !== this.#child) return;
      this.#stdout += chunk;
      const lines = this.#stdout.split('\n');
      this.#stdout = lines.pop() ?? '';
      this.#stdoutLines.push(...lines.filter((line) => line.trim() !== ''));
      this.#settle();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (child !== this.#child) return;
      this.#stderr += chunk;
      this.#settle();
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => this.#stop(new Error(`the nft shell failed: ${error.message}`), child));
    child.on('exit', (code, signal) => {
      const said = this.#stderr.split('\n').filter((line) => line.trim() !== '' && !CARET_LINE.test(line));
      const detail = said.length > 0 ? `: ${said.join(' ').slice(0, 300)}` : '';
      this.#stop(new Error(`the nft shell ended (${signal ?? code})${detail}`), child);
    });
    return child;
  }

  /** Hands each finished command its answer, in order, as markers and listings arrive. */
  #settle(): void {
    for (;;) {
      const next = this.#waiting[0];
      if (next === undefined) return;
      if (next.stderr === null) {
        const stderr = this.#takeUntilMarker(next.token);
        if (stderr === null) return;
        next.stderr = stderr;
      }
      let stdout: string | null = null;
      if (next.output && next.stderr === '') {
        stdout = this.#stdoutLines.shift() ?? null;
        if (stdout === null) return;
      }
      this.#waiting.shift();
      next.resolve({ stderr: next.stderr, stdout });
    }
  }

  /**
   * The stderr before the echo of the marker `token`, without the marker's own error line and the
   * `^` lines, and takes it off the buffer; null while the echo has not arrived whole.
   */
  #takeUntilMarker(token: string): string | null {
    const lines = this.#stderr.split('\n');
    const echo = lines.findIndex((line, index) => index < lines.length - 1 && isMarkerEcho(line, token));
    if (echo === -1) return null;
    this.#stderr = lines.slice(echo + 1).join('\n');
    const before = lines.slice(0, echo);
    // The marker's own "Error: syntax error, …" comes right before its echo.
    if (/Error:/.test(before.at(-1) ?? '')) before.pop();
    return before.filter((line) => line.trim() !== '' && !CARET_LINE.test(line)).join('\n');
  }

  /** Ends the process (if it is `child`, or whichever runs when not given) and fails every waiting command. */
  #stop(error: Error, child = this.#child): void {
    if (child === null || child !== this.#child) return;
    this.#child = null;
    for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
    if (child.exitCode !== null || child.signalCode !== null) return;
    // SIGTERM first: nft ends at once without writing its history; SIGKILL if it does not.
    child.kill('SIGTERM');
    const kill = setTimeout(() => {
      child.kill('SIGKILL');
      // Under sudo the signal may not reach nft: the end of its input does.
      child.stdin.destroy();
    }, STOP_GRACE_MS);
    kill.unref();
    child.once('exit', () => clearTimeout(kill));
  }
}

/**
 * True for a non-empty line without control characters: a newline would split a command in two
 * (the second half run on its own), and libedit may read others as editing keys.
 */
function isOneLine(line: string): boolean {
  if (line.trim() === '') return false;
  for (let index = 0; index < line.length; index += 1) {
    const code = line.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** The line nft echoes under the marker's parse error: `postern-sync psync-7`. */
function isMarkerEcho(line: string, token: string): boolean {
  const words = line.trim().split(/\s+/);
  return words.length === 2 && words[0] === MARKER && words[1] === token;
}
