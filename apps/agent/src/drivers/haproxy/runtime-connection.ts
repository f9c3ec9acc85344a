import { connect, type Socket } from 'node:net';
import type { HaproxySocket } from '../../config/settings.js';

/** What HAProxy prints after each response in interactive ("prompt") mode. */
const PROMPT = '\n> ';

/**
 * One connection to HAProxy's runtime API in interactive mode: many commands on one socket, each
 * answer ending with the `> ` prompt, so thousands of `add acl` lines can be written at once and their
 * answers matched to them in order. (Without prompt mode HAProxy closes after one line, and `;`
 * chains lose the boundary between answers.)
 */
export class RuntimeConnection {
  readonly #socket: Socket;
  #buffer = '';
  readonly #answers: string[] = [];
  #failure: Error | null = null;
  #wake: (() => void) | null = null;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let end = this.#buffer.indexOf(PROMPT);
      while (end !== -1) {
        this.#answers.push(this.#buffer.slice(0, end));
        this.#buffer = this.#buffer.slice(end + PROMPT.length);
        end = this.#buffer.indexOf(PROMPT);
      }
      this.#notify();
    });
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('HAProxy closed the runtime API connection')));
    socket.on('timeout', () => {
      this.#fail(new Error('HAProxy runtime API did not answer in time'));
      socket.destroy();
    });
  }

  /** Connects and switches the session to interactive mode. */
  static async open(target: HaproxySocket, timeoutMs: number): Promise<RuntimeConnection> {
    const socket = target.kind === 'unix' ? connect(target.path) : connect(target.port, target.host);
    socket.setTimeout(timeoutMs);
    const connection = new RuntimeConnection(socket);
    try {
      await connection.send(['prompt']);
    } catch (error) {
      connection.close();
      throw new Error(`cannot use the HAProxy runtime API at ${describe(target)}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return connection;
  }

  /** Sends the commands at once and returns HAProxy's answer to each, in order, without the trailing newline. */
  async send(commands: readonly string[]): Promise<string[]> {
    for (const command of commands) {
      // A newline or ';' would start another command: callers build commands from checked values only.
      if (/[\n\r;]/.test(command)) throw new Error('a runtime API command may not contain a newline or ;');
    }
    const first = this.#answers.length;
    const wanted = first + commands.length;
    if (commands.length > 0) this.#socket.write(commands.map((command) => `${command}\n`).join(''));
    while (this.#answers.length < wanted) {
      if (this.#failure !== null) throw this.#failure;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    return this.#answers.splice(first, commands.length).map((answer) => answer.replace(/\n$/, ''));
  }

  close(): void {
    this.#socket.destroy();
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }
}

function describe(target: HaproxySocket): string {
  return target.kind === 'unix' ? target.path : `${target.host}:${target.port}`;
}
