import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import {
  AGENT_CONNECT_PATH,
  AGENT_PROTOCOL_VERSION,
  AgentToServerMessage,
  agentProofPayload,
  type AgentKeyProof,
  type AgentKnoc,
  type ApplyMessage,
  type DesiredEntry,
  type EntryKey,
  type StateMessage,
} from '@postern/protocol';
import { waitFor } from '@postern/test-support';

/** One agent connection the fake server accepted. */
export interface FakeConnection {
  socket: WebSocket;
  headers: IncomingHttpHeaders;
  /** Every message the agent sent on it, validated. */
  messages: AgentToServerMessage[];
  /** Set when the connection closed: the close code the server saw. */
  closeCode: number | null;
  /** The challenge this connection was sent, or null when the server sent none. */
  nonce: string | null;
  /** Whether the hello's key proof verified for this connection's nonce (null before a hello). */
  proofValid: boolean | null;
}

/** Whether `proof` is a valid Ed25519 signature of the proof payload for `nonce`, as the server checks it. */
export function verifyProof(proof: AgentKeyProof | undefined, nonce: string | null): boolean {
  if (proof === undefined || nonce === null) return false;
  try {
    const key = createPublicKey({ key: Buffer.from(proof.publicKey, 'base64url'), format: 'der', type: 'spki' });
    const payload = Buffer.from(agentProofPayload(nonce, proof.publicKey), 'utf8');
    return key.asymmetricKeyType === 'ed25519' && verify(null, payload, key, Buffer.from(proof.signature, 'base64url'));
  } catch {
    return false;
  }
}

/**
 * A stand-in for the Postern server's agent endpoint on 127.0.0.1: accepts WebSocket upgrades on the
 * agent path, opens each connection with a challenge (unless told not to, like a server from before
 * keys) and checks the hello's key proof, records each connection's headers and messages (validated
 * with the protocol), answers heartbeats unless told not to, and sends whatever a test asks.
 */
export class FakePosternServer {
  readonly connections: FakeConnection[] = [];
  /** Answer heartbeats with heartbeat-ack. */
  ackHeartbeats = true;
  /** Open each connection with a challenge, as the server does. */
  sendChallenge = true;
  /** An HTTP status to refuse upgrades with, or null to accept them. */
  refuseWith: number | null = null;
  /** Frames from the agent that did not match the protocol (a test expects none). */
  readonly invalidMessages: string[] = [];
  /** Every upgrade attempt's time (Date.now()), refused or not. */
  readonly attempts: number[] = [];
  readonly #server: WebSocketServer;
  readonly #httpServer: HttpServer;
  readonly #scheme: 'http' | 'https';

  private constructor(server: WebSocketServer, httpServer: HttpServer, scheme: 'http' | 'https') {
    this.#server = server;
    this.#httpServer = httpServer;
    this.#scheme = scheme;
    server.on('connection', (socket, request) => {
      const nonce = this.sendChallenge ? randomBytes(32).toString('base64url') : null;
      const connection: FakeConnection = {
        socket,
        headers: request.headers,
        messages: [],
        closeCode: null,
        nonce,
        proofValid: null,
      };
      this.connections.push(connection);
      if (nonce !== null) socket.send(JSON.stringify({ type: 'challenge', version: AGENT_PROTOCOL_VERSION, nonce }));
      socket.on('message', (data: Buffer) => {
        const text = data.toString('utf8');
        const parsed = AgentToServerMessage.safeParse(JSON.parse(text));
        if (!parsed.success) {
          this.invalidMessages.push(text);
          return;
        }
        const message = parsed.data;
        if (message.type === 'hello') connection.proofValid = verifyProof(message.proof, connection.nonce);
        connection.messages.push(message);
        if (message.type === 'heartbeat' && this.ackHeartbeats) {
          socket.send(JSON.stringify({ type: 'heartbeat-ack', version: AGENT_PROTOCOL_VERSION }));
        }
      });
      socket.on('close', (code) => (connection.closeCode = code));
    });
  }

  /** Starts listening on a free loopback port; with `tls`, over HTTPS (wss://). */
  static async start(options: { tls?: { key: string; cert: string } } = {}): Promise<FakePosternServer> {
    let fake: FakePosternServer | null = null;
    const httpServer = options.tls === undefined ? createHttpServer() : createHttpsServer(options.tls);
    const server = new WebSocketServer({
      server: httpServer,
      path: AGENT_CONNECT_PATH,
      verifyClient: (_info, done) => {
        fake?.attempts.push(Date.now());
        if (fake !== null && fake.refuseWith !== null) done(false, fake.refuseWith);
        else done(true);
      },
    });
    // A client that rejects the certificate ends the handshake; that is what some tests expect.
    httpServer.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve()));
    fake = new FakePosternServer(server, httpServer, options.tls === undefined ? 'http' : 'https');
    return fake;
  }

  /** The agent's serverUrl for this server. */
  get serverUrl(): string {
    return `${this.#scheme}://127.0.0.1:${(this.#httpServer.address() as AddressInfo).port}`;
  }

  /** The agent's connectUrl for this server. */
  get connectUrl(): string {
    return `${this.serverUrl.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`;
  }

  /** The newest connection (throws when there is none). */
  get latest(): FakeConnection {
    const connection = this.connections.at(-1);
    if (connection === undefined) throw new Error('no agent has connected');
    return connection;
  }

  /** Waits until `count` connections have been accepted (and said hello), returning the last. */
  async waitForConnections(count: number): Promise<FakeConnection> {
    await waitFor(
      () => this.connections.length >= count && (this.connections[count - 1]?.messages.length ?? 0) > 0,
      `${count} agent connection(s) with hello`,
    );
    return this.connections[count - 1] as FakeConnection;
  }

  /** Sends a message on the newest connection. */
  send(message: object, connection: FakeConnection = this.latest): void {
    connection.socket.send(JSON.stringify(message));
  }

  /** Sends a whole desired state. */
  sendState(generation: number, knocs: AgentKnoc[], entries: DesiredEntry[], connection?: FakeConnection): void {
    const message: StateMessage = { type: 'state', version: AGENT_PROTOCOL_VERSION, generation, knocs, entries };
    this.send(message, connection);
  }

  /** Sends incremental changes. */
  sendApply(generation: number, add: DesiredEntry[], remove: EntryKey[], connection?: FakeConnection): void {
    const message: ApplyMessage = { type: 'apply', version: AGENT_PROTOCOL_VERSION, generation, add, remove };
    this.send(message, connection);
  }

  /** The result messages received on a connection (default: the newest). */
  results(connection: FakeConnection = this.latest) {
    return connection.messages.filter((message) => message.type === 'result');
  }

  /** Waits for the result answering `generation` and returns it. */
  async result(generation: number, connection: FakeConnection = this.latest) {
    await waitFor(
      () => this.results(connection).some((message) => message.generation === generation),
      `the result for generation ${generation}`,
    );
    return this.results(connection).find((message) => message.generation === generation) as Extract<
      AgentToServerMessage,
      { type: 'result' }
    >;
  }

  /** Closes every connection with `code` (from the server's side). */
  closeAll(code: number, reason = ''): void {
    for (const connection of this.connections) {
      if (connection.socket.readyState === WebSocket.OPEN) connection.socket.close(code, reason);
    }
  }

  async stop(): Promise<void> {
    for (const client of this.#server.clients) client.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    this.#httpServer.closeAllConnections();
    await new Promise<void>((resolve) => this.#httpServer.close(() => resolve()));
  }
}
