import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import WebSocket from 'ws';
import {
  AGENT_CONNECT_PATH,
  AGENT_PROTOCOL_VERSION,
  ServerToAgentMessage,
  agentProofPayload,
  agentSealingKeyPayload,
  type AgentCapabilities,
  type AgentKeyProof,
  type AgentSealingKey,
  type DesiredEntry,
  type EntryResult,
} from '@postern/protocol';
import { deriveSealingKey, openSealed, type SealedPlace } from '@postern/protocol/sealing';
import { agentCapabilities } from './agent-factories.js';

/** An agent's key pair, as postern-agent keeps it in its key file. */
export interface FakeAgentKey {
  privateKey: KeyObject;
  /** The public key as the protocol carries it: SPKI DER, base64url. */
  publicKey: string;
}

/** A fresh Ed25519 key pair, like the one postern-agent makes on its first connection. */
export function fakeAgentKey(): FakeAgentKey {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64url') };
}

/** The sealing key as postern-agent sends it: derived from its identity key, signed by it. */
export function sealingKeyOf(key: FakeAgentKey): AgentSealingKey {
  const { publicKey } = deriveSealingKey(key.privateKey);
  const payload = Buffer.from(agentSealingKeyPayload(key.publicKey, publicKey), 'utf8');
  return { publicKey, signature: sign(null, payload, key.privateKey).toString('base64url') };
}

/** Opens a value sealed to the agent with this identity key, as postern-agent does (throws when it cannot). */
export function openAsAgent(key: FakeAgentKey, sealed: string, place: SealedPlace): string {
  return openSealed(deriveSealingKey(key.privateKey).privateKey, sealed, place);
}

/** A proof as postern-agent makes it: the key signs the payload for `nonce`. */
export function proveKey(key: FakeAgentKey, nonce: string): AgentKeyProof {
  const payload = Buffer.from(agentProofPayload(nonce, key.publicKey), 'utf8');
  return { publicKey: key.publicKey, signature: sign(null, payload, key.privateKey).toString('base64url') };
}

/** An entry the server sent, as {@link FakeAgent.decide} sees it. */
export interface FakeAgentEntry {
  aclId: string;
  ip: string;
  action: 'add' | 'remove';
  /** The server asked for a read-back of the device (a knoc test). */
  verify?: true;
}

function addition(entry: DesiredEntry): FakeAgentEntry {
  return {
    aclId: entry.aclId,
    ip: entry.ip,
    action: 'add',
    ...(entry.verify === true ? { verify: true as const } : {}),
  };
}

/**
 * A protocol-level stand-in for postern-agent: speaks the real WebSocket protocol (waits for the
 * challenge, proves its key in the hello) and records what the server sends, answering every entry
 * with the outcome `decide` picks (ok by default). One instance keeps one key across reconnects,
 * like an agent with its key file. The real agent and its drivers are tested in apps/agent and in
 * the system tests.
 */
export class FakeAgent {
  readonly messages: ServerToAgentMessage[] = [];
  /** By default: ok, and an entry sent with `verify` read back as held, as postern-agent answers. */
  decide: (entry: FakeAgentEntry) => EntryResult | null = ({ verify, ...entry }) => ({
    ...entry,
    ok: true,
    error: '',
    ...(verify === true ? { readBack: 'held' as const } : {}),
  });
  /**
   * The wall clock the agent reports in its hello and heartbeats (epoch ms), as postern-agent does;
   * null: it reports none, as an agent from before the clock checks.
   */
  wallClock: (() => number) | null = null;
  /** How the last connection ended (null while it is open or before any). */
  closed: { code: number; reason: string } | null = null;
  readonly key: FakeAgentKey;
  #socket: WebSocket | undefined;
  readonly #waiters: (() => void)[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    options: {
      key?: FakeAgentKey;
      sealing?: boolean;
      /** How long {@link waitFor} waits (default 5 s; a benchmark of thousands of agents needs more). */
      waitLimitMs?: number;
    } = {},
  ) {
    this.key = options.key ?? fakeAgentKey();
    // Made once, when the agent starts, as postern-agent makes it from its key file.
    this.#sealingKey = (options.sealing ?? true) ? sealingKeyOf(this.key) : null;
    this.#waitLimitMs = options.waitLimitMs ?? 5_000;
  }

  /** The sealing key every hello carries (null: none, as an agent from before sealing). */
  readonly #sealingKey: AgentSealingKey | null;
  readonly #waitLimitMs: number;

  /**
   * Connects, waits for the challenge and says hello with a proof of its key; resolves when the
   * first full state has arrived, rejects when the server closes the connection first.
   */
  async connect(capabilities: AgentCapabilities = agentCapabilities(), generation = 0): Promise<void> {
    const nonce = await this.open();
    const before = this.states().length;
    this.hello({
      capabilities,
      generation,
      proof: proveKey(this.key, nonce),
      sealingKey: this.#sealingKey,
    });
    await this.waitFor(() => {
      if (this.#socket?.readyState === WebSocket.CLOSED) {
        throw new Error(`connection refused: ${this.closed?.code ?? 0} ${this.closed?.reason ?? ''}`);
      }
      return this.states().length > before;
    }, 'the first state');
  }

  /** Opens the socket and resolves with the nonce of the challenge that opens it; no hello yet. */
  async open(): Promise<string> {
    const socket = new WebSocket(`${this.baseUrl.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
      headers: { authorization: `Bearer ${this.token}` },
    });
    this.#socket = socket;
    this.closed = null;
    const before = this.challenges().length;
    // Listening before the upgrade completes: the challenge can arrive with the upgrade's answer.
    socket.on('message', (data: Buffer) => this.#receive(data.toString('utf8')));
    socket.on('close', (code, reason) => {
      if (this.#socket === socket) this.closed = { code, reason: reason.toString('utf8') };
      this.#wake();
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`connect refused: ${response.statusCode ?? 0}`)),
      );
    });
    await this.waitFor(() => this.challenges().length > before, 'the challenge');
    const challenge = this.challenges().at(-1);
    if (challenge === undefined) throw new Error('no challenge');
    return challenge.nonce;
  }

  /** Sends a hello: with `proof` as given (null: none, as an agent from before keys existed sends). */
  hello(fields: {
    proof: AgentKeyProof | null;
    /** The sealing key to register (null or absent: none, as an agent from before sealing sends). */
    sealingKey?: AgentSealingKey | null;
    capabilities?: AgentCapabilities;
    generation?: number;
  }): void {
    this.send({
      type: 'hello',
      version: AGENT_PROTOCOL_VERSION,
      agentVersion: '1.9.0',
      capabilities: fields.capabilities ?? agentCapabilities(),
      generation: fields.generation ?? 0,
      applied: [],
      ...(fields.proof === null ? {} : { proof: fields.proof }),
      ...(fields.sealingKey === null || fields.sealingKey === undefined ? {} : { sealingKey: fields.sealingKey }),
      ...this.#wallClockField(),
    });
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

  /** Resolves with the close code and reason once the server has closed the connection. */
  async whenClosed(): Promise<{ code: number; reason: string }> {
    await this.waitFor(() => this.closed !== null, 'the connection to close');
    return this.closed as { code: number; reason: string };
  }

  /** Drops the connection without a closing handshake, as a crashed agent or a cut network does. */
  terminate(): void {
    this.#socket?.terminate();
  }

  /** Sends a heartbeat, as postern-agent does every POSTERN_AGENT_HEARTBEAT_SECONDS (this one never does on its own). */
  heartbeat(): void {
    if (this.isOpen()) this.send({ type: 'heartbeat', version: AGENT_PROTOCOL_VERSION, ...this.#wallClockField() });
  }

  #wallClockField(): { wallClockMs?: number } {
    return this.wallClock === null ? {} : { wallClockMs: this.wallClock() };
  }

  /** Whether the current connection is open. */
  isOpen(): boolean {
    return this.#socket?.readyState === WebSocket.OPEN;
  }

  challenges() {
    return this.messages.filter((message) => message.type === 'challenge');
  }

  states() {
    return this.messages.filter((message) => message.type === 'state');
  }

  applies() {
    return this.messages.filter((message) => message.type === 'apply');
  }

  goodbyes() {
    return this.messages.filter((message) => message.type === 'goodbye');
  }

  /** Resolves once `condition` holds, checking after every message (5 s at most unless told). */
  async waitFor(condition: () => boolean, what = 'a condition'): Promise<void> {
    const deadline = Date.now() + this.#waitLimitMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  #receive(text: string): void {
    const message = ServerToAgentMessage.parse(JSON.parse(text));
    this.messages.push(message);
    if (message.type === 'state' || message.type === 'apply') {
      const entries =
        message.type === 'state'
          ? message.entries.map((entry) => addition(entry))
          : [
              ...message.add.map((entry) => addition(entry)),
              ...message.remove.map((entry) => ({ aclId: entry.aclId, ip: entry.ip, action: 'remove' as const })),
            ];
      const results = entries.map((entry) => this.decide(entry)).filter((result) => result !== null);
      this.send({ type: 'result', version: AGENT_PROTOCOL_VERSION, generation: message.generation, results });
    }
    this.#wake();
  }
}
