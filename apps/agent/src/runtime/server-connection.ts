import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import WebSocket from 'ws';
import {
  AGENT_PROTOCOL_VERSION,
  AgentCloseCodes,
  HelloMessage,
  POSTERN_VERSION,
  agentProofPayload,
  type AgentCapabilities,
  type AgentToServerMessage,
  type DesiredEntry,
  type ServerToAgentMessage,
} from '@postern/protocol';
import type { AgentKey } from '../config/agent-key.js';
import type { Secret } from '../config/secret.js';
import type { Backoff } from './backoff.js';
import { errorMessage } from './driver-calls.js';
import { decodeServerMessage, encodeAgentMessage } from './message-codec.js';

/** The server is presumed gone after this many heartbeat intervals without any message from it. */
const MISSED_HEARTBEATS_BEFORE_RECONNECT = 3;
/** A connection that stayed up this long resets the back-off. */
const STABLE_CONNECTION_MS = 30_000;
/** A TLS or WebSocket handshake that takes longer than this is abandoned. */
const HANDSHAKE_TIMEOUT_MS = 20_000;
/** How long a graceful close may take on shutdown before the socket is cut. */
const CLOSE_TIMEOUT_MS = 2_000;
/** The server sends its challenge at once; one that has not after this long is not a Postern server of this version. */
const CHALLENGE_TIMEOUT_MS = 15_000;

/** Logged when a connection ends before the server sent a challenge. */
export const NO_CHALLENGE_MESSAGE =
  'the server sent no challenge; it may run an older Postern than this agent (upgrade the server)';

/** Logged when the server refuses the key proof: what the operator must do about it. */
export const KEY_REFUSED_MESSAGE =
  "the server refused this agent's key: if it is not the one registered, an admin must rotate the token and the agent be reinstalled with the new one";

/** One open connection: replies go back on the connection the message came from. */
export interface ServerLink {
  /** Sends a message; false when this connection has closed meanwhile (the message is dropped). */
  send(message: AgentToServerMessage): boolean;
}

/** What the connection needs from the rest of the agent. */
export interface ServerConnectionOptions {
  connectUrl: string;
  token: Secret;
  /** Proves to the server, on every connection, that this is the agent that enrolled. */
  key: AgentKey;
  caFile: string | null;
  insecureSkipVerify: boolean;
  heartbeatMs: number;
  backoff: Backoff;
  /** Shorter in tests. */
  stableAfterMs?: number;
  logger: Logger;
  /** The agent's wall clock (epoch ms), sent in the hello and heartbeats for the server's clock checks. */
  wallMs?: () => number;
  /** Detects the host's capabilities; called before each connection attempt. */
  capabilities: () => Promise<AgentCapabilities>;
  /** The generation and the entries held, read at the moment the connection opens. */
  applied: () => { generation: number; applied: DesiredEntry[] };
  /** A valid state, apply, heartbeat-ack or goodbye (the challenge is answered here). */
  onMessage: (message: ServerToAgentMessage, link: ServerLink) => void;
  /** Called with true once hello is sent, and with false when that connection ends. */
  onConnectedChange: (connected: boolean) => void;
}

/**
 * The agent's one WebSocket to the server: names itself with the token, answers the server's
 * challenge with a hello that proves its key, sends heartbeats, drops a connection on which the
 * server has gone quiet, and reconnects with back-off until {@link stop}. Messages are validated
 * here; an invalid one is logged (without its content) and ignored, never fatal.
 */
export class ServerConnection {
  readonly #options: ServerConnectionOptions;
  readonly #logger: Logger;
  #socket: WebSocket | null = null;
  #reconnectTimer: NodeJS.Timeout | null = null;
  #heartbeatTimer: NodeJS.Timeout | null = null;
  #stopping = false;
  #connected = false;
  #lastCaFile: string[] = [];

  constructor(options: ServerConnectionOptions) {
    this.#options = options;
    this.#logger = options.logger;
  }

  /** Whether a connection is open and hello was sent. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Starts connecting; failures are retried until {@link stop}. */
  start(): void {
    void this.#connect();
  }

  /** Sends on the current connection; false when there is none. */
  send(message: AgentToServerMessage): boolean {
    const socket = this.#socket;
    if (socket === null || !this.#connected || socket.readyState !== WebSocket.OPEN) return false;
    socket.send(encodeAgentMessage(message));
    return true;
  }

  /** Stops reconnecting and closes the connection with 1000 (normal closure). */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#reconnectTimer !== null) clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = null;
    const socket = this.#socket;
    if (socket === null || socket.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    if (socket.readyState === WebSocket.OPEN) {
      socket.close(1000, 'agent stopping');
      const cut = setTimeout(() => socket.terminate(), CLOSE_TIMEOUT_MS);
      await closed;
      clearTimeout(cut);
    } else {
      socket.terminate();
      await closed;
    }
  }

  async #connect(): Promise<void> {
    if (this.#stopping) return;
    let capabilities: AgentCapabilities;
    try {
      capabilities = await this.#options.capabilities();
    } catch (error) {
      this.#logger.error({ error: errorMessage(error) }, 'cannot detect capabilities; retrying');
      this.#scheduleReconnect(this.#options.backoff.next());
      return;
    }
    if (this.#stopping) return;

    const options = this.#options;
    const socket = new WebSocket(options.connectUrl, {
      headers: {
        Authorization: `Bearer ${options.token.reveal()}`,
        'User-Agent': `postern-agent/${POSTERN_VERSION}`,
      },
      ca: this.#trustedCertificates(),
      rejectUnauthorized: !options.insecureSkipVerify,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
      followRedirects: false,
    });
    this.#socket = socket;
    let openedAt: number | null = null;
    let refusedStatus: number | null = null;
    let lastHeardAt = performance.now();
    let challenged = false;
    let helloSent = false;
    /** A state arrived after the hello: the server accepted the key on this connection. */
    let admitted = false;
    let challengeTimer: NodeJS.Timeout | null = null;

    socket.on('unexpected-response', (_request, response) => {
      refusedStatus = response.statusCode ?? null;
      response.resume();
      socket.terminate();
    });
    socket.on('open', () => {
      openedAt = performance.now();
      lastHeardAt = openedAt;
      // Nothing is sent before the server's challenge: the hello must sign it.
      // A server that never sends one is cut; the close below says why.
      challengeTimer = setTimeout(() => socket.terminate(), CHALLENGE_TIMEOUT_MS);
    });
    const answerChallenge = (nonce: string) => {
      if (challengeTimer !== null) clearTimeout(challengeTimer);
      challenged = true;
      if (helloSent) {
        this.#logger.warn('ignoring a second challenge from the server');
        return;
      }
      const hello = this.#hello(capabilities, nonce);
      if (hello === null) {
        socket.close(1011, 'agent cannot describe itself');
        return;
      }
      socket.send(encodeAgentMessage(hello));
      helloSent = true;
      this.#connected = true;
      this.#logger.info(
        { url: options.connectUrl, generation: hello.generation, applied: hello.applied.length },
        'connected to the server',
      );
      this.#startHeartbeat(socket, () => lastHeardAt);
      options.onConnectedChange(true);
    };
    // A ping proves the server is there as well as a message does (ws answers it with a pong).
    socket.on('ping', () => (lastHeardAt = performance.now()));
    socket.on('message', (data, isBinary) => {
      lastHeardAt = performance.now();
      const decoded = decodeServerMessage(data, isBinary);
      if (!decoded.ok) {
        this.#logger.warn(
          { problem: decoded.problem, type: decoded.type, issues: decoded.issues },
          'ignoring an invalid message from the server',
        );
        return;
      }
      const message = decoded.message;
      if (message.type === 'goodbye') {
        this.#logger.info({ reason: message.reason }, 'the server said goodbye');
      }
      if (message.type === 'challenge') return answerChallenge(message.nonce);
      if (!helloSent && message.type !== 'goodbye') {
        this.#logger.warn({ type: message.type }, 'ignoring a message that came before the challenge');
        return;
      }
      if (message.type === 'state') admitted = true;
      const link: ServerLink = {
        send: (message) => {
          if (this.#socket !== socket || socket.readyState !== WebSocket.OPEN) return false;
          socket.send(encodeAgentMessage(message));
          return true;
        },
      };
      options.onMessage(message, link);
    });
    socket.on('error', (error) => {
      // A refused upgrade is reported by the close below; other errors end in a close too.
      if (refusedStatus === null) {
        this.#logger.warn({ url: options.connectUrl, error: error.message }, 'connection error');
      }
    });
    socket.on('close', (code, reasonBuffer) => {
      if (challengeTimer !== null) clearTimeout(challengeTimer);
      const reason = reasonBuffer.toString('utf8').slice(0, 200);
      const wasConnected = this.#connected && this.#socket === socket;
      if (this.#socket === socket) {
        this.#socket = null;
        this.#connected = false;
        this.#stopHeartbeat();
      }
      if (wasConnected) options.onConnectedChange(false);
      if (this.#stopping) {
        this.#logger.debug({ code }, 'closed the connection to the server');
        return;
      }
      if (openedAt !== null && performance.now() - openedAt >= (options.stableAfterMs ?? STABLE_CONNECTION_MS)) {
        options.backoff.reset();
      }
      const unauthorised = code === AgentCloseCodes.unauthorised || refusedStatus === 401 || refusedStatus === 403;
      const delay = unauthorised
        ? options.backoff.atCap()
        : code === AgentCloseCodes.serverStopping
          ? options.backoff.afterServerStopping()
          : options.backoff.next();
      const fields = { code, reason, httpStatus: refusedStatus ?? undefined, retryInMs: delay };
      if (unauthorised && helloSent && !admitted) {
        // Refused after the proof was sent and before any state: the key, not the token.
        this.#logger.error({ ...fields, keyFingerprint: options.key.fingerprint }, KEY_REFUSED_MESSAGE);
      } else if (unauthorised) {
        this.#logger.error(fields, 'the server refused the agent token; check the token in the admin console');
      } else if (code === AgentCloseCodes.replaced) {
        this.#logger.warn(fields, 'another connection with this agent token replaced this one');
      } else if (openedAt !== null && !challenged) {
        this.#logger.error(fields, NO_CHALLENGE_MESSAGE);
      } else {
        this.#logger.warn(fields, openedAt === null ? 'cannot connect to the server' : 'disconnected from the server');
      }
      this.#scheduleReconnect(delay);
    });
  }

  #hello(capabilities: AgentCapabilities, nonce: string): HelloMessage | null {
    const { generation, applied } = this.#options.applied();
    const { key } = this.#options;
    const hello = HelloMessage.safeParse({
      type: 'hello',
      version: AGENT_PROTOCOL_VERSION,
      agentVersion: POSTERN_VERSION,
      capabilities,
      generation,
      applied,
      proof: { publicKey: key.publicKey, signature: key.sign(agentProofPayload(nonce, key.publicKey)) },
      sealingKey: key.sealingKey,
      wallClockMs: this.#wallClockMs(),
    });
    if (hello.success) return hello.data;
    this.#logger.error(
      {
        issues: hello.error.issues.slice(0, 5).map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      },
      'cannot build a valid hello message',
    );
    return null;
  }

  #startHeartbeat(socket: WebSocket, lastHeardAt: () => number): void {
    this.#stopHeartbeat();
    const interval = this.#options.heartbeatMs;
    this.#heartbeatTimer = setInterval(() => {
      const silentMs = performance.now() - lastHeardAt();
      if (silentMs > MISSED_HEARTBEATS_BEFORE_RECONNECT * interval) {
        this.#logger.warn({ silentMs: Math.round(silentMs) }, 'the server stopped answering; reconnecting');
        socket.terminate();
        return;
      }
      if (socket.readyState === WebSocket.OPEN) {
        socket.send(
          encodeAgentMessage({ type: 'heartbeat', version: AGENT_PROTOCOL_VERSION, wallClockMs: this.#wallClockMs() }),
        );
      }
    }, interval);
  }

  #wallClockMs(): number {
    return Math.round((this.#options.wallMs ?? Date.now)());
  }

  #stopHeartbeat(): void {
    if (this.#heartbeatTimer !== null) clearInterval(this.#heartbeatTimer);
    this.#heartbeatTimer = null;
  }

  #scheduleReconnect(delayMs: number): void {
    if (this.#stopping) return;
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = null;
      void this.#connect();
    }, delayMs);
  }

  /**
   * The system's trusted roots plus caFile (read on every attempt, so a replaced certificate is used
   * without a restart); `undefined` keeps Node's default store when there is no caFile.
   */
  #trustedCertificates(): string[] | undefined {
    const caFile = this.#options.caFile;
    if (caFile === null) return undefined;
    try {
      this.#lastCaFile = [readFileSync(caFile, 'utf8')];
    } catch (error) {
      this.#logger.warn({ caFile, error: errorMessage(error) }, 'cannot read caFile; using the copy read before');
    }
    return [...rootCertificates, ...this.#lastCaFile];
  }
}
