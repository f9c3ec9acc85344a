import WebSocket from 'ws';
import {
  AGENT_CONNECT_PATH,
  AGENT_PROTOCOL_VERSION,
  ServerToAgentMessage,
  type AgentCapabilities,
  type EntryResult,
} from '@postern/protocol';
import { agentCapabilities } from './agent-factories.js';

/**
 * A protocol-level stand-in for postern-agent: speaks the real WebSocket protocol and records what
 * the server sends, answering every entry with the outcome `decide` picks (ok by default). The real
 * agent and its drivers are tested in apps/agent and in the system tests.
 */
export class FakeAgent {
  readonly messages: ServerToAgentMessage[] = [];
  decide: (entry: { aclId: string; ip: string; action: 'add' | 'remove' }) => EntryResult | null = (entry) => ({
    ...entry,
    ok: true,
    error: '',
  });
  #socket: WebSocket | undefined;
  readonly #waiters: (() => void)[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** Connects and says hello; resolves when the first full state has arrived. */
  async connect(capabilities: AgentCapabilities = agentCapabilities(), generation = 0): Promise<void> {
    const socket = new WebSocket(`${this.baseUrl.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
    this.#socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`connect refused: ${response.statusCode ?? 0}`)),
      );
    });
    socket.on('message', (data: Buffer) => this.#receive(data.toString('utf8')));
    const before = this.states().length;
    this.send({
      type: 'hello',
      version: AGENT_PROTOCOL_VERSION,
      agentVersion: '1.9.0',
      capabilities,
      generation,
      applied: [],
    });
    await this.waitFor(() => this.states().length > before);
  }

  send(message: object): void {
    this.#socket?.send(JSON.stringify(message));
  }

  /** Closes the connection and waits until it is closed. */
  async disconnect(): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.close(1000);
    });
  }

  states() {
    return this.messages.filter((message) => message.type === 'state');
  }

  applies() {
    return this.messages.filter((message) => message.type === 'apply');
  }

  /** Resolves once `condition` holds, checking after every message (5 s at most). */
  async waitFor(condition: () => boolean, what = 'a condition'): Promise<void> {
    const deadline = Date.now() + 5_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  #receive(text: string): void {
    const message = ServerToAgentMessage.parse(JSON.parse(text));
    this.messages.push(message);
    if (message.type === 'state' || message.type === 'apply') {
      const entries =
        message.type === 'state'
          ? message.entries.map((entry) => ({ aclId: entry.aclId, ip: entry.ip, action: 'add' as const }))
          : [
              ...message.add.map((entry) => ({ aclId: entry.aclId, ip: entry.ip, action: 'add' as const })),
              ...message.remove.map((entry) => ({ aclId: entry.aclId, ip: entry.ip, action: 'remove' as const })),
            ];
      const results = entries.map((entry) => this.decide(entry)).filter((result) => result !== null);
      this.send({ type: 'result', version: AGENT_PROTOCOL_VERSION, generation: message.generation, results });
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
