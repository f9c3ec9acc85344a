import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import type { Logger } from 'pino';
import { AGENT_CONNECT_PATH, AgentCloseCodes, ErrorCodes, type HelloMessage } from '@postern/protocol';
import type { HubContext } from '../app-context.js';
import type { AgentEntryKey, AgentSync } from '../grants/agent-sync.js';
import { clientAddress } from '../lib/client-address.js';
import { NotFoundError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import { Semaphore } from '../lib/semaphore.js';
import { findAgentByToken } from '../agents/agents.repo.js';
import { AgentRefusals, admitAgentConnection } from '../agents/agent-enrolment.js';
import { RefusedConnectionAudit } from '../agents/refused-connection-audit.js';
import { AgentConnection, type AdmitDecision } from './agent-connection.js';
import { GENERATION_BLOCK } from './generations.js';
import { DisconnectRecorder } from './disconnect-recorder.js';
import { LastSeenRecorder } from './last-seen-recorder.js';
import { paceUpgrades, type UpgradePacer } from './upgrade-pacer.js';
import { StoreOutageLog } from '../store/store-outage-log.js';

/** How long shutdown waits for the agents to answer the close before it cuts them off. */
export const AGENT_CLOSE_GRACE_MS = 2_000;

/** Largest message an agent may send (a hello listing every applied entry of a big agent). */
const MAX_AGENT_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * Connection set-ups (the token looked up; the key proof admitted with the first state sent) the hub
 * runs at once. A fleet reconnecting together (a network blip, a server restart) brings thousands at
 * a time; run all at once, their store work queued ahead of every person's request for seconds, and
 * the SQLite store's synchronous answers ran them back to back without the event loop turning. A few
 * at a time, each in its own turn of the event loop, keeps the server answering; the fleet comes
 * back as fast, since the work is the same.
 */
const SET_UP_CONCURRENCY = 4;

/** The agent a token names. Not yet authenticated: that takes the key proof inside the socket. */
interface IdentifiedAgent {
  id: string;
  name: string;
  /** The hash of the token the upgrade presented; admission checks it is still the agent's. */
  tokenHash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    postern_agent?: IdentifiedAgent;
  }
}

/**
 * Holds the agents' WebSocket connections on this server and turns committed changes into
 * messages for them. The store stays the source of truth: a connection only ever sends what it
 * reads from the store at a fresh generation, so anything missed (a crash between commit and send)
 * is repaired by the full state every reconnect brings.
 *
 * The token on the upgrade only names the agent. A new connection waits among the pending ones,
 * knowing nothing but its challenge, until its hello proves the agent's key; only then does it take
 * the agent's slot (closing an older connection) and receive state. A token holder without the key
 * never disturbs the agent's live connection.
 */
export class AgentHub implements AgentSync {
  /** Admitted connections, one per agent. */
  readonly #connections = new Map<string, AgentConnection>();
  /** The admin-given names of the admitted agents (the heartbeat metric's label). */
  readonly #names = new Map<string, string>();
  /** Connections that have not proved the key yet. */
  readonly #pending = new Set<AgentConnection>();
  /** Admitted connections whose connection id was written to the store (their close is recorded). */
  readonly #recorded = new WeakSet<AgentConnection>();
  readonly #refusals: RefusedConnectionAudit;
  /** Writes disconnects in batches (a network blip drops thousands of agents at once). */
  readonly #disconnects: DisconnectRecorder;
  /** Store writes a connection's end or refusal started (audits, the agent's connection id). */
  readonly #tasks = new Set<Promise<void>>();
  /** close() was called: the server is stopping, and new connections are turned away. */
  #stopping = false;
  readonly #setUps = new Semaphore(SET_UP_CONCURRENCY, { yieldBetween: true });
  /** Writes the connected agents' heartbeats as LastSeen, all at once every few seconds. */
  readonly #lastSeen: LastSeenRecorder;
  /** A store outage met by admissions: one warning for every agent that meets it. */
  readonly #admissionOutage: StoreOutageLog;

  constructor(private readonly ctx: HubContext) {
    this.#refusals = new RefusedConnectionAudit(ctx);
    this.#disconnects = new DisconnectRecorder(ctx);
    this.#lastSeen = new LastSeenRecorder(ctx);
    this.#admissionOutage = new StoreOutageLog(ctx.logger, 'admitting agent connections (agents retry)');
  }

  /** Registers the WebSocket endpoint. Call before the app is ready. */
  async register(app: FastifyInstance): Promise<void> {
    this.#lastSeen.start();
    await app.register(fastifyWebsocket, { options: { maxPayload: MAX_AGENT_MESSAGE_BYTES } });
    // A reconnecting fleet's upgrades are routed a few per turn of the event loop (see paceUpgrades).
    let pacer: UpgradePacer | null = null;
    app.addHook('onReady', (done) => {
      pacer = paceUpgrades(app.server);
      done();
    });
    // Before the server stops listening (and waits for every socket to end): an upgrade still
    // waiting would otherwise be routed into a closing app and hold the close up.
    app.addHook('preClose', (done) => {
      pacer?.stop();
      done();
    });
    app.route({
      method: 'GET',
      url: AGENT_CONNECT_PATH,
      preValidation: (request, reply) => this.#authenticate(request, reply),
      // A plain request (no WebSocket upgrade) gets the API's error envelope, like any unknown route.
      handler: () => {
        throw new NotFoundError({ extra: 'WebSocket only' });
      },
      wsHandler: (socket, request) => {
        const agent = request.postern_agent;
        if (agent === undefined) {
          socket.close(AgentCloseCodes.unauthorised, 'unauthorised');
          return;
        }
        this.#accept(socket, request, agent);
      },
    });
  }

  entriesChanged(keys: readonly AgentEntryKey[]): void {
    void this.deliverEntryChanges(keys);
  }

  async deliverEntryChanges(keys: readonly AgentEntryKey[]): Promise<void> {
    const byAgent = new Map<string, AgentEntryKey[]>();
    for (const key of keys) byAgent.set(key.agentId, [...(byAgent.get(key.agentId) ?? []), key]);
    const sends: Promise<void>[] = [];
    for (const [agentId, agentKeys] of byAgent) {
      const connection = this.#connections.get(agentId);
      if (connection !== undefined) sends.push(connection.entriesChanged(agentKeys));
    }
    await Promise.all(sends);
  }

  agentsChanged(agentIds: readonly string[]): void {
    for (const agentId of new Set(agentIds)) this.#connections.get(agentId)?.resendState();
  }

  /**
   * Another server admitted a connection of the agent: one here is stale (half-open TCP, or the
   * agent moved). Closed only while the store still names another connection as the agent's, so a
   * late notification never closes a connection admitted here after it.
   */
  connectedElsewhere(agentId: string): void {
    const connection = this.#connections.get(agentId);
    if (connection === undefined) return;
    const check = async () => {
      const row = await this.ctx.db
        .selectFrom('agents')
        .select('connectionId')
        .where('id', '=', agentId)
        .executeTakeFirst();
      const current = row?.connectionId ?? null;
      if (current !== null && current !== connection.connectionId && this.#connections.get(agentId) === connection) {
        connection.close(AgentCloseCodes.replaced, 'replaced by a newer connection to another server');
      }
    };
    this.#track(
      check().catch((error: unknown) => {
        this.ctx.logger.warn({ err: error, agentId }, 'could not check whether an agent moved to another server');
      }),
    );
  }

  /** Sends every agent connected here its whole state again (change notifications may have been lost). */
  resendAll(): void {
    for (const connection of this.#connections.values()) connection.resendState();
  }

  disconnectAgent(agentId: string, reason: string): void {
    this.#connections.get(agentId)?.close(AgentCloseCodes.unauthorised, reason);
    // Also a connection still proving its key: it presented the token that was just replaced.
    for (const pending of this.#pending) {
      if (pending.agentId === agentId) pending.close(AgentCloseCodes.unauthorised, reason);
    }
  }

  /** The agents connected here that have said hello, by name, with when each last sent anything (metrics). */
  connectedAgents(): { name: string; lastMessageAt: number }[] {
    return [...this.#connections.entries()]
      .filter(([, connection]) => connection.ready)
      .map(([agentId, connection]) => ({
        name: this.#names.get(agentId) ?? agentId,
        lastMessageAt: connection.lastMessageAt,
      }));
  }

  /** The clock offsets (agent minus this server, ms) of the agents connected here that report their clock. */
  agentClockOffsets(): number[] {
    const offsets: number[] = [];
    for (const connection of this.#connections.values()) {
      if (connection.ready && connection.clockOffsetMs !== null) offsets.push(connection.clockOffsetMs);
    }
    return offsets;
  }

  /** Whether this server holds a connection to the agent that has said hello. */
  isConnected(agentId: string): boolean {
    return this.#connections.get(agentId)?.ready === true;
  }

  /** Resolves when every connection has sent what was queued (tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.idle()));
  }

  /**
   * Says goodbye to every agent and closes its connection (server shutdown; agents reconnect to
   * another replica or later, with back-off), turns new ones away, and resolves once each socket has
   * closed and everything the connections started with the store (queued work, recording the
   * disconnects) has finished: after this the store may close. A peer that has not answered the close
   * within `graceMs` is cut off then, so no agent can hold the stop up.
   */
  async close(graceMs = AGENT_CLOSE_GRACE_MS): Promise<void> {
    this.#stopping = true;
    await this.closeConnections(graceMs);
    await this.#lastSeen.stop();
  }

  /**
   * Closes every agent connection as close() does and waits for the same work (queued sends, the
   * disconnects recorded, the heartbeats written), but keeps taking new connections. A test app that
   * lives for a whole test file starts each test with no connection left from the one before.
   */
  async closeConnections(graceMs = AGENT_CLOSE_GRACE_MS): Promise<void> {
    const open = [...this.#connections.values(), ...this.#pending];
    for (const connection of open) connection.close(AgentCloseCodes.serverStopping, 'server stopping');
    const cutOff = setTimeout(() => {
      const unanswered = open.filter((connection) => !connection.socketClosed);
      this.ctx.logger.info({ agents: unanswered.length }, 'agents did not answer the close in time; cut off');
      for (const connection of unanswered) connection.terminate();
    }, graceMs);
    try {
      await Promise.all(open.map((connection) => connection.whenClosed()));
    } finally {
      clearTimeout(cutOff);
    }
    await Promise.all(open.map((connection) => connection.idle()));
    while (this.#tasks.size > 0) await Promise.allSettled([...this.#tasks]);
    await this.#lastSeen.flush();
  }

  /** Keeps a store write the hub started (not awaited by anyone) until it ends, for close(). */
  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    const done = () => this.#tasks.delete(task);
    task.then(done, done);
  }

  async #authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([^\s]{1,512})$/.exec(header);
    const token = match?.[1];
    const row = token === undefined ? null : await this.#setUps.run(() => findAgentByToken(this.ctx.db, token));
    if (row === null) {
      request.log.warn({ address: clientAddress(request) }, 'agent connection refused: unknown token');
      await reply.code(401).send({ Err: ErrorCodes.unauthorised });
      return;
    }
    request.postern_agent = { id: row.id, name: row.name, tokenHash: row.tokenHash };
  }

  #accept(
    socket: ConstructorParameters<typeof AgentConnection>[1],
    request: FastifyRequest,
    agent: IdentifiedAgent,
  ): void {
    if (this.#stopping) {
      // Between close() and the HTTP listener closing: the agent comes back to a running server.
      socket.close(AgentCloseCodes.serverStopping, 'server stopping');
      return;
    }
    const connectionId = uuidv7();
    const address = clientAddress(request);
    const log = this.ctx.logger.child({ agent: agent.name, agentId: agent.id, connectionId });
    const connection = new AgentConnection(this.ctx, socket, agent.id, connectionId, log, {
      admit: (candidate, hello, nonce) => this.#admit(candidate, agent, address, hello, nonce, log),
      timedOut: () => this.#track(this.#refused(agent, address, AgentRefusals.timeout, null, log)),
      closed: (closed) => this.#track(this.#closed(closed, agent)),
      setUp: (work) => this.#setUps.run(work),
      heard: () => this.#lastSeen.heard(agent.id),
    });
    this.#pending.add(connection);
    log.debug({ address }, 'agent connection opened; challenge sent');
  }

  /**
   * Admits a connection whose hello proves the agent's key (enrolling it when none is registered),
   * and gives it the agent's slot; refuses (and audits) any other.
   */
  async #admit(
    connection: AgentConnection,
    agent: IdentifiedAgent,
    address: string,
    hello: HelloMessage,
    nonce: string,
    log: Logger,
  ): Promise<AdmitDecision> {
    const outcome = await this.#admitting(() =>
      admitAgentConnection(this.ctx, {
        agentId: agent.id,
        tokenHash: agent.tokenHash,
        nonce,
        proof: hello.proof,
        sealingKey: hello.sealingKey,
        connectionId: connection.connectionId,
        address,
        report: {
          agentVersion: hello.agentVersion,
          capabilities: hello.capabilities,
          appliedGeneration: hello.generation,
        },
        generationBlock: GENERATION_BLOCK,
      }),
    );
    if (!outcome.admitted) {
      this.#pending.delete(connection);
      await this.#refused(agent, address, outcome.refusal, outcome.fingerprint, log);
      return { refusal: outcome.refusal };
    }
    this.#pending.delete(connection);
    this.#recorded.add(connection);
    if (outcome.enrolled) log.info({ address, keyFingerprint: outcome.fingerprint }, 'agent enrolled its key');
    // Closed while its proof was checked (a token rotation, shutdown, the agent gone): never given the
    // slot. Its close is recorded when the socket closes, or now if that has already happened.
    if (connection.closing) {
      if (connection.socketClosed) await this.#closed(connection, agent);
      return { reservedGeneration: outcome.reservedGeneration };
    }
    // A newer proven connection replaces an older one: the agent restarted or its network changed.
    this.#connections.get(agent.id)?.close(AgentCloseCodes.replaced, 'replaced by a newer connection');
    this.#connections.set(agent.id, connection);
    this.#names.set(agent.id, agent.name);
    log.info({ address }, 'agent connected');
    return { reservedGeneration: outcome.reservedGeneration };
  }

  /** Runs an admission's store work, the store's outages logged once for the whole fleet. */
  async #admitting<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      this.#admissionOutage.succeeded();
      return result;
    } catch (error) {
      this.#admissionOutage.failed(error);
      throw error;
    }
  }

  async #refused(
    agent: IdentifiedAgent,
    address: string,
    reason: string,
    fingerprint: string | null,
    log: Logger,
  ): Promise<void> {
    await this.#refusals.record({ agentId: agent.id, agentName: agent.name, address, reason, fingerprint }, log);
  }

  async #closed(connection: AgentConnection, agent: IdentifiedAgent): Promise<void> {
    this.#pending.delete(connection);
    if (this.#connections.get(agent.id) === connection) {
      this.#connections.delete(agent.id);
      this.#names.delete(agent.id);
    }
    // A connection that never proved the key was never the agent's: nothing to record.
    if (!this.#recorded.has(connection)) return;
    await this.#disconnects.record({
      agentId: agent.id,
      agentName: agent.name,
      connectionId: connection.connectionId,
    });
  }
}
