import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyWebsocket from '@fastify/websocket';
import { AGENT_CONNECT_PATH, AgentCloseCodes, AuditActions, ErrorCodes } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { AgentEntryKey, AgentSync } from '../grants/agent-sync.js';
import { clientAddress } from '../http/client-address.js';
import { recordAudit } from '../audit/audit.js';
import { uuidv7 } from '../lib/ids.js';
import { findAgentByToken } from '../agents/agents.repo.js';
import { AgentConnection } from './agent-connection.js';

/** Largest message an agent may send (a hello listing every applied entry of a big agent). */
const MAX_AGENT_MESSAGE_BYTES = 64 * 1024 * 1024;

interface AuthenticatedAgent {
  id: string;
  name: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    postern_agent?: AuthenticatedAgent;
  }
}

/**
 * Holds the agents' WebSocket connections on this server and turns committed changes into
 * messages for them. The store stays the source of truth: a connection only ever sends what it
 * reads from the store at a fresh generation, so anything missed (a crash between commit and send)
 * is repaired by the full state every reconnect brings.
 */
export class AgentHub implements AgentSync {
  readonly #connections = new Map<string, AgentConnection>();

  constructor(private readonly ctx: AppContext) {}

  /** Registers the WebSocket endpoint. Call before the app is ready. */
  async register(app: FastifyInstance): Promise<void> {
    await app.register(fastifyWebsocket, { options: { maxPayload: MAX_AGENT_MESSAGE_BYTES } });
    app.get(
      AGENT_CONNECT_PATH,
      { websocket: true, preValidation: (request, reply) => this.#authenticate(request, reply) },
      (socket, request) => {
        const agent = request.postern_agent;
        if (agent === undefined) {
          socket.close(AgentCloseCodes.unauthorised, 'unauthorised');
          return;
        }
        void this.#accept(socket, request, agent);
      },
    );
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

  disconnectAgent(agentId: string, reason: string): void {
    this.#connections.get(agentId)?.close(AgentCloseCodes.unauthorised, reason);
  }

  /** Whether this server holds a connection to the agent that has said hello. */
  isConnected(agentId: string): boolean {
    return this.#connections.get(agentId)?.ready === true;
  }

  /** Resolves when every connection has sent what was queued (tests, benchmarks). */
  async idle(): Promise<void> {
    await Promise.all([...this.#connections.values()].map((connection) => connection.idle()));
  }

  /** Closes every agent connection (server shutdown); agents reconnect to another replica or later. */
  close(): void {
    for (const connection of this.#connections.values())
      connection.close(AgentCloseCodes.serverStopping, 'server stopping');
  }

  async #authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization ?? '';
    const match = /^Bearer ([^\s]{1,512})$/.exec(header);
    const row = match?.[1] === undefined ? null : await findAgentByToken(this.ctx.db, match[1]);
    if (row === null) {
      request.log.warn({ address: clientAddress(request) }, 'agent connection refused: unknown token');
      await reply.code(401).send({ Err: ErrorCodes.unauthorised });
      return;
    }
    request.postern_agent = { id: row.id, name: row.name };
  }

  async #accept(
    socket: ConstructorParameters<typeof AgentConnection>[1],
    request: FastifyRequest,
    agent: AuthenticatedAgent,
  ): Promise<void> {
    const connectionId = uuidv7();
    const address = clientAddress(request);
    const log = this.ctx.logger.child({ agent: agent.name, agentId: agent.id, connectionId });
    // A newer connection replaces an older one: the agent restarted or its network changed.
    this.#connections.get(agent.id)?.close(AgentCloseCodes.replaced, 'replaced by a newer connection');
    const connection = new AgentConnection(this.ctx, socket, agent.id, connectionId, log, (closed) => {
      void this.#closed(closed, agent);
    });
    this.#connections.set(agent.id, connection);
    const now = this.ctx.clock.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('agents')
        .set({ connectionId, externalIp: address, lastSeen: now })
        .where('id', '=', agent.id)
        .execute();
      await recordAudit(trx, now, AuditActions.AgentConnected, { AgentName: agent.name, IpAddress: address });
    });
    log.info({ address }, 'agent connected');
  }

  async #closed(connection: AgentConnection, agent: AuthenticatedAgent): Promise<void> {
    if (this.#connections.get(agent.id) === connection) this.#connections.delete(agent.id);
    const now = this.ctx.clock.now();
    try {
      await this.ctx.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('agents')
          .set({ connectionId: null })
          .where('id', '=', agent.id)
          .where('connectionId', '=', connection.connectionId)
          .execute();
        await recordAudit(trx, now, AuditActions.AgentDisconnected, { AgentName: agent.name });
      });
    } catch (error) {
      this.ctx.logger.warn({ err: error, agentId: agent.id }, 'could not record an agent disconnect');
    }
  }
}
