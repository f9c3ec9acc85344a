import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/**
 * A long-lived `ipset -exist -` (ipset's interactive mode) for small, latency-critical batches:
 * starting a process costs several milliseconds, more than the kernel needs for the change itself.
 *
 * Interactive mode keeps going after an error and prints errors on stderr without saying which
 * command they belong to, so after every command the shell is sent a marker command that always
 * fails at parse time, before touching the kernel, with an error naming a unique token:
 * `create postern-sync hash:ip family psync-<n>` → "Syntax error: unknown inet family psync-<n>".
 * Whatever stderr holds between two markers is the error of the command between them.
 */
export class IpsetShell {
  readonly #command: readonly string[];
  readonly #timeoutMs: number;
  #child: ChildProcessByStdio<Writable, Readable, Readable> | null = null;
  #stderr = '';
  #sequence = 0;
  readonly #waiting: { token: string; resolve: (error: string) => void; reject: (error: Error) => void }[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(command: readonly string[], timeoutMs: number) {
    this.#command = command;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Runs the lines in order, one call at a time, and returns what ipset said about each ('' when it
   * succeeded). Rejects when the shell itself failed (could not start, died, did not answer in
   * time): the caller then does the same work another way; every line is idempotent with -exist.
   */
  run(lines: readonly string[]): Promise<string[]> {
    const result = this.#queue.then(() => this.#runNow(lines));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Ends the shell process. */
  close(): void {
    this.#stop(new Error('the ipset shell was closed'));
  }

  async #runNow(lines: readonly string[]): Promise<string[]> {
    if (lines.some((line) => /[\r\n]/.test(line))) throw new Error('an ipset command may not contain a newline');
    const child = this.#start();
    const answers = lines.map((line) => {
      this.#sequence += 1;
      const token = `psync-${this.#sequence}`;
      const answer = new Promise<string>((resolve, reject) => this.#waiting.push({ token, resolve, reject }));
      return { text: `${line}\ncreate postern-sync hash:ip family ${token}\n`, answer };
    });
    child.stdin.write(answers.map(({ text }) => text).join(''));
    const timer = setTimeout(
      () => this.#stop(new Error(`ipset did not answer within ${this.#timeoutMs} ms`)),
      this.#timeoutMs,
    );
    try {
      return await Promise.all(answers.map(({ answer }) => answer));
    } finally {
      clearTimeout(timer);
    }
  }

  #start(): ChildProcessByStdio<Writable, Readable, Readable> {
    if (this.#child !== null) return this.#child;
    const [file, ...args] = this.#command;
    if (file === undefined) throw new Error('no ipset command');
    const child = spawn(file, [...args, '-exist', '-'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    this.#stderr = '';
    child.stdout.resume();
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr += chunk;
      this.#settle();
    });
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => this.#stop(error, child));
    child.on('exit', (code, signal) => this.#stop(new Error(`the ipset shell ended (${signal ?? code})`), child));
    return child;
  }

  /** Hands each finished command its error text, in order, as the markers arrive. */
  #settle(): void {
    for (;;) {
      const next = this.#waiting[0];
      if (next === undefined) return;
      const lines = this.#stderr.split('\n');
      const markerLine = lines.findIndex((line) => line.split(/[\s'`"]+/).includes(next.token));
      if (markerLine === -1 || markerLine === lines.length - 1) return;
      this.#waiting.shift();
      this.#stderr = lines.slice(markerLine + 1).join('\n');
      next.resolve(lines.slice(0, markerLine).join('\n'));
    }
  }

  /** Ends the process (if it is `child`, or any when not given) and fails every waiting command. */
  #stop(error: Error, child = this.#child): void {
    if (child === null || child !== this.#child) return;
    this.#child = null;
    child.kill('SIGKILL');
    for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
  }
}
