import type { WebSocket } from 'ws';
import type { Logger } from 'pino';
import {
  AGENT_OFFLINE_AFTER_SECONDS,
  AGENT_PROTOCOL_VERSION,
  AgentCloseCodes,
  type EntryKey,
  type HelloMessage,
  type ServerToAgentMessage,
} from '@postern/protocol';
import type { HubContext } from '../app-context.js';
import { newAgentNonce } from '../agents/agent-key.js';
import { backoffDelay } from '../lib/backoff.js';
import { StoreOutageLog } from '../store/store-outage-log.js';
import { isStoreUnavailable } from '../store/store-unavailable.js';
import { parseAgentFrame, textOf } from './agent-frames.js';
import { agentKnocs, desiredEntries, desiredForKeys, withoutUnreadableKnocs } from './desired-state.js';
import { Generations } from './generations.js';
import { recordResults } from './results.js';
import { STORE_RETRY, untilStored, type RetryScope } from './store-retry.js';

/** WebSocket's close code for a server that cannot serve now (RFC 6455 registry: Try Again Later). */
const TRY_AGAIN_LATER = 1013;

/** An agent that has not proved its key in a hello this long after connecting is dropped. */
const HELLO_TIMEOUT_MS = 10_000;

/**
 * The hub's decision on a hello: admitted (the connection is the agent's, its hello recorded, and
 * generations up to `reservedGeneration` reserved for its messages), or refused with the reason (the
 * hub has audited it).
 */
export type AdmitDecision = { reservedGeneration: number } | { refusal: string };

/** What a connection asks of the hub, which alone decides who may hold an agent's slot. */
export interface AgentConnectionHooks {
  /** Decides on the hello's key proof for this connection's nonce. */
  admit(connection: AgentConnection, hello: HelloMessage, nonce: string): Promise<AdmitDecision>;
  /** No proof arrived in time; the connection closes. */
  timedOut(connection: AgentConnection): void;
  /** The socket has closed (called once). */
  closed(connection: AgentConnection): void;
  /** Runs a connection's set-up (admission and first state), a few at a time across the hub. */
  setUp(work: () => Promise<void>): Promise<void>;
  /** The admitted agent sent a heartbeat: the hub writes it as seen (LastSeen) with the others. */
  heard(): void;
}

/**
 * One agent's live WebSocket. It opens with a challenge and sends nothing else until the hello's
 * key proof has been accepted (see AgentConnectionHooks.admit): a token alone learns nothing.
 * Messages to the agent leave in the order their generations were taken: every send is computed and
 * sent inside one serial work queue, and a burst of changes is coalesced into one message (see
 * #scheduleFlush).
 */
export class AgentConnection {
  readonly #pendingKeys = new Map<string, EntryKey>();
  #fullStatePending = false;
  #flushScheduled = false;
  #work: Promise<void> = Promise.resolve();
  #ready = false;
  /** A hello has arrived: whatever its outcome, a second one is a protocol error. */
  #helloReceived = false;
  /** close() was called; the socket may not have closed yet. */
  #closing = false;
  #closed = false;
  /** Resolves once the socket has closed and the closed hook has run (see whenClosed). */
  #resolveSocketClosed: () => void = () => undefined;
  readonly #socketClosed = new Promise<void>((resolve) => (this.#resolveSocketClosed = resolve));
  /** This connection's challenge; it never leaves the connection, so there is nothing to replay. */
  readonly #nonce = newAgentNonce();
  #lastMessageAt: number;
  /** The generations of messages to the agent, reserved in the store a block at a time. */
  readonly #generations: Generations;
  /** Knocs left out of the last full state because a secret of theirs cannot be opened (aclId → error). */
  #unreadableKnocs: ReadonlyMap<string, string> = new Map();
  readonly #watchdog: NodeJS.Timeout;
  readonly #helloTimer: NodeJS.Timeout;
  /** Aborted when the connection closes: ends waits between retries of store work. */
  readonly #closingSignal = new AbortController();
  readonly #resultsOutage: StoreOutageLog;
  readonly #flushOutage: StoreOutageLog;
  /** Failed flushes in a row (the store was unavailable), for the back-off before the next. */
  #flushFailures = 0;
  /** The agent's clock minus this server's when its last hello or heartbeat arrived (ms); null when it never said. */
  #clockOffsetMs: number | null = null;

  constructor(
    private readonly ctx: HubContext,
    private readonly socket: WebSocket,
    readonly agentId: string,
    readonly connectionId: string,
    private readonly log: Logger,
    private readonly hooks: AgentConnectionHooks,
  ) {
    this.#lastMessageAt = Date.now();
    this.#generations = new Generations(ctx, agentId);
    this.#resultsOutage = new StoreOutageLog(log, 'recording agent results');
    this.#flushOutage = new StoreOutageLog(log, 'sending changes to the agent');
    socket.on('message', (data, isBinary) => {
      this.#lastMessageAt = Date.now();
      if (isBinary) return this.close(AgentCloseCodes.protocolError, 'binary frames are not part of the protocol');
      this.#enqueue(() => this.#handle(textOf(data)));
    });
    socket.on('close', () => this.#closedBySocket());
    socket.on('error', (error) => this.log.warn({ err: error }, 'agent socket error'));
    this.#helloTimer = setTimeout(() => {
      if (this.#helloReceived || this.closing) return;
      this.hooks.timedOut(this);
      this.close(AgentCloseCodes.protocolError, 'no hello');
    }, HELLO_TIMEOUT_MS);
    // The watchdog, like the hello timer, measures wall time on purpose, not the injected clock: it
    // guards a real socket, and a test's manual clock must not close or keep a live connection.
    this.#watchdog = setInterval(() => {
      if (Date.now() - this.#lastMessageAt > AGENT_OFFLINE_AFTER_SECONDS * 1000) {
        this.close(AgentCloseCodes.heartbeatTimeout, 'no heartbeat');
      }
    }, 5_000);
    this.#watchdog.unref();
    this.#send({ type: 'challenge', version: AGENT_PROTOCOL_VERSION, nonce: this.#nonce });
  }

  /** When the agent last sent anything (wall time; heartbeats come every few seconds). */
  get lastMessageAt(): number {
    return this.#lastMessageAt;
  }

  /** The agent's clock minus this server's (ms), from its last hello or heartbeat; null for an agent that does not say. */
  get clockOffsetMs(): number | null {
    return this.#clockOffsetMs;
  }

  /** The agent's key was accepted and its hello handled: it receives state. */
  get ready(): boolean {
    return this.#ready;
  }

  /** close() was called or the socket closed: the connection must not be given the agent's slot. */
  get closing(): boolean {
    return this.#closing || this.#closed;
  }

  /** The socket has closed (and the closed hook has run). */
  get socketClosed(): boolean {
    return this.#closed;
  }

  /** Resolves when the socket has closed and the closed hook has run (shutdown waits for it). */
  whenClosed(): Promise<void> {
    return this.#socketClosed;
  }

  /**
   * Entries whose desired state may have changed. Resolves once they have been sent (or the send
   * failed and was logged); it never rejects.
   */
  entriesChanged(keys: readonly EntryKey[]): Promise<void> {
    for (const key of keys) this.#pendingKeys.set(`${key.aclId} ${key.ip}`, { aclId: key.aclId, ip: key.ip });
    this.#scheduleFlush();
    return this.#work;
  }

  /** Resend everything (knocs changed). */
  resendState(): void {
    this.#fullStatePending = true;
    this.#scheduleFlush();
  }

  /** Closes the socket, telling the agent why. */
  close(code: number, reason: string): void {
    if (this.#closed || this.#closing) return;
    this.#closing = true;
    this.#closingSignal.abort();
    if (code !== AgentCloseCodes.protocolError)
      this.#send({ type: 'goodbye', version: AGENT_PROTOCOL_VERSION, reason });
    this.socket.close(code, reason.slice(0, 120));
    // A peer that never answers the close handshake must not hold the slot.
    setTimeout(() => this.socket.terminate(), 5_000).unref();
  }

  /** Cuts the socket off without waiting for the agent to answer the close (shutdown's time is up). */
  terminate(): void {
    if (!this.#closed) this.socket.terminate();
  }

  /** Resolves when the queued work has been done (tests and shutdown). */
  async idle(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.#work) {
      seen = this.#work;
      await seen;
    }
  }

  #enqueue(task: () => Promise<void>): void {
    this.#work = this.#work.then(task).catch((error: unknown) => {
      this.log.error({ err: error }, 'agent connection task failed');
    });
  }

  /**
   * Queues one flush unless one is already waiting to run: changes that arrive before it starts
   * (a burst, or while an earlier flush awaits the store) are all in #pendingKeys when it does, so
   * they leave together. Queued at once rather than on a later tick: the apply then leaves before
   * the HTTP reply that caused it is written.
   */
  #scheduleFlush(): void {
    if (!this.#ready || this.#flushScheduled || this.closing) return;
    this.#flushScheduled = true;
    this.#enqueue(() => {
      this.#flushScheduled = false;
      return this.#flush();
    });
  }

  /**
   * Sends what is pending. When the store cannot be read or written, what was taken is put back and
   * a later flush tries again: a change committed just before an outside lock still reaches the
   * agent once the lock is gone.
   */
  async #flush(): Promise<void> {
    if (this.closing) return;
    const fullState = this.#fullStatePending;
    const keys = [...this.#pendingKeys.values()];
    try {
      await this.#sendPending();
      this.#flushFailures = 0;
      this.#flushOutage.succeeded();
    } catch (error) {
      if (!this.#flushOutage.failed(error)) throw error;
      if (fullState) this.#fullStatePending = true;
      for (const key of keys) this.#pendingKeys.set(`${key.aclId} ${key.ip}`, key);
      const delay = backoffDelay(this.#flushFailures, STORE_RETRY);
      this.#flushFailures += 1;
      setTimeout(() => this.#scheduleFlush(), delay).unref();
    }
  }

  async #sendPending(): Promise<void> {
    if (this.#fullStatePending) {
      this.#fullStatePending = false;
      this.#pendingKeys.clear();
      await this.#sendFullState();
      return;
    }
    if (this.#pendingKeys.size === 0) return;
    const keys = [...this.#pendingKeys.values()];
    this.#pendingKeys.clear();
    // The generation is taken before the state is read, in the serial queue: a message computed
    // before a revoke's carries a lower generation than the revoke's own, and reads no newer state.
    const generation = await this.#generations.take();
    const now = this.ctx.clock.now();
    const desired = await desiredForKeys(this.ctx.db, this.agentId, keys, now);
    const add = await withoutUnreadableKnocs(this.ctx.db, this.#unreadableKnocs, desired.add, now);
    this.#send({ type: 'apply', version: AGENT_PROTOCOL_VERSION, generation, add, remove: desired.remove });
  }

  async #sendFullState(): Promise<void> {
    const generation = await this.#generations.take();
    // One snapshot: the entries must belong to the knocs sent with them.
    const message = await this.ctx.db.transaction().execute(async (trx) => {
      const now = this.ctx.clock.now();
      const { knocs, unreadable } = await agentKnocs(this.ctx, trx, this.agentId);
      this.#unreadableKnocs = unreadable;
      const entries = await withoutUnreadableKnocs(trx, unreadable, await desiredEntries(trx, this.agentId, now), now);
      return { type: 'state', version: AGENT_PROTOCOL_VERSION, generation, knocs, entries } as const;
    });
    this.log.info(
      { generation: message.generation, knocs: message.knocs.length, entries: message.entries.length },
      'state sent to agent',
    );
    this.#send(message);
  }

  async #handle(text: string): Promise<void> {
    const parsed = parseAgentFrame(text, this.log);
    if (parsed.refusal !== undefined) return this.close(AgentCloseCodes.protocolError, parsed.refusal);
    const { message } = parsed;
    if (!this.#ready) {
      // Nothing from a connection being closed before its key was accepted; and before that, the
      // only message is the hello carrying the proof.
      if (this.closing) return;
      if (message.type !== 'hello') return this.close(AgentCloseCodes.protocolError, 'hello first');
    }
    if (message.type === 'hello' && this.#helloReceived)
      return this.close(AgentCloseCodes.protocolError, 'hello twice');
    switch (message.type) {
      case 'hello': {
        this.#helloReceived = true;
        this.#noteAgentClock(message.wallClockMs);
        clearTimeout(this.#helloTimer);
        // A few connections at a time across the hub: a reconnecting fleet must not queue thousands
        // of admissions and states in the store ahead of a person's request.
        await this.hooks.setUp(() => this.#admitAndSendState(message));
        return;
      }
      case 'heartbeat': {
        this.#noteAgentClock(message.wallClockMs);
        this.#send({ type: 'heartbeat-ack', version: AGENT_PROTOCOL_VERSION });
        this.hooks.heard();
        return;
      }
      case 'result': {
        if (!this.#ready) return;
        const recorded = await untilStored(this.#retryScope(), this.#resultsOutage, () =>
          recordResults(this.ctx.db, this.agentId, message.results, this.ctx.clock.now(), this.ctx.metrics),
        );
        if (!recorded) {
          this.log.info(
            { generation: message.generation, results: message.results.length },
            'agent results not recorded before the connection closed; the agent reports them again when it reconnects',
          );
          return;
        }
        const failed = message.results.filter((result) => !result.ok);
        if (failed.length > 0) {
          this.log.warn(
            { generation: message.generation, failed: failed.length, first: failed[0]?.error },
            'agent reported failures',
          );
        }
        return;
      }
    }
  }

  /**
   * The hello's key proof decided on (the hub admits the connection, recording the hello's report,
   * or refuses it), and the agent's whole state sent: the work one connection's set-up costs.
   */
  async #admitAndSendState(message: HelloMessage): Promise<void> {
    let decision: AdmitDecision;
    try {
      decision = await this.hooks.admit(this, message, this.#nonce);
    } catch (error) {
      // The store failed us; the agent retries with back-off, and nothing was sent meanwhile. An
      // unavailable store (locked, out of reach, full) is logged once per outage by the hub.
      if (isStoreUnavailable(error)) return this.close(TRY_AGAIN_LATER, 'store unavailable');
      this.log.error({ err: error }, 'could not check the agent key proof');
      return this.close(1011, 'server error');
    }
    if ('refusal' in decision) return this.close(AgentCloseCodes.unauthorised, decision.refusal);
    // Closed while the proof was checked (a rotation, a newer connection, shutdown).
    if (this.closing) return;
    this.#generations.startWith(decision.reservedGeneration);
    this.log.info(
      { agentVersion: message.agentVersion, applied: message.applied.length, generation: message.generation },
      'agent said hello',
    );
    this.#ready = true;
    // The first state, sent now (this runs in the serial queue, as a flush does).
    this.#fullStatePending = true;
    await this.#flush();
  }

  /** Notes the agent's clock against ours (the message's transit makes the agent look a little behind). */
  #noteAgentClock(wallClockMs: number | undefined): void {
    if (wallClockMs !== undefined) this.#clockOffsetMs = wallClockMs - this.ctx.clock.now();
  }

  /** This connection as untilStored sees it: retries stop once it closes. */
  #retryScope(): RetryScope {
    return { isClosing: () => this.closing, signal: this.#closingSignal.signal };
  }

  #send(message: ServerToAgentMessage): void {
    if (this.#closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(JSON.stringify(message));
  }

  #closedBySocket(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closingSignal.abort();
    clearTimeout(this.#helloTimer);
    clearInterval(this.#watchdog);
    this.hooks.closed(this);
    this.#resolveSocketClosed();
  }
}
