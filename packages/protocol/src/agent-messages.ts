import { z } from 'zod';
import { AgentCapabilities } from './agents.js';
import { BackendType } from './backends.js';

/**
 * The agent protocol: JSON text frames over one WebSocket at AGENT_CONNECT_PATH, each validated by
 * these schemas on both ends. Every message carries `type` and the protocol `version`.
 *
 * Ordering and staleness: the server numbers every message that changes an agent's desired state
 * with the agent's `generation`: increasing in the order the messages are sent and read from the
 * store, above anything sent on an earlier connection (the store holds the highest generation
 * reserved). The agent remembers the generation at which it last changed
 * each entry and ignores an `apply` that is not newer, so a message computed before a revoke can
 * never re-add the revoked address.
 */
export const AGENT_PROTOCOL_VERSION = 1;

const version = z.literal(AGENT_PROTOCOL_VERSION);

/** An address on a knoc: one IPv4/IPv6 address or CIDR. */
export const EntryKey = z.object({ aclId: z.string().min(1), ip: z.string().min(1).max(64) });
export type EntryKey = z.infer<typeof EntryKey>;

/** A granted address as the agent must hold it. */
export const DesiredEntry = EntryKey.extend({
  /** Seconds left; the agent expires the entry on its own clock after this long, server or not. */
  ttlSeconds: z.number().int().min(1),
  /** The user the entry was granted to (the first, when several sessions share the address). */
  userName: z.string(),
});
export type DesiredEntry = z.infer<typeof DesiredEntry>;

/**
 * One knoc the agent enforces: its backend's type and config, the knoc's own config, and the values
 * a driver needs. Secrets arrive decrypted, over TLS, only for the agent that uses them.
 */
export const AgentKnoc = z.object({
  aclId: z.string().min(1),
  /** The knoc's description, passed to scripts as knoc_aclname when the script has no Name. */
  name: z.string(),
  url: z.string(),
  backendId: z.string().min(1),
  backendType: BackendType,
  /** The backend's fields (e.g. { Protocol, Address } for haproxy), secrets decrypted. */
  backend: z.record(z.string(), z.unknown()),
  /** The knoc's fields (e.g. { V4SetName, V6SetName } for ipset), variable values decrypted. */
  acl: z.record(z.string(), z.unknown()),
});
export type AgentKnoc = z.infer<typeof AgentKnoc>;

// ---- agent → server ----

/** First message on every connection. */
export const HelloMessage = z.object({
  type: z.literal('hello'),
  version,
  agentVersion: z.string().max(64),
  capabilities: AgentCapabilities,
  /** The highest generation the agent has applied (from its state file); 0 when it has none. */
  generation: z.number().int().min(0),
  /** What the agent believes is applied, for the log and the server's view of the device. */
  applied: z.array(DesiredEntry).max(1_000_000),
});

export const HeartbeatMessage = z.object({ type: z.literal('heartbeat'), version });

/** The outcome of one entry operation. */
export const EntryResult = EntryKey.extend({
  action: z.enum(['add', 'remove']),
  ok: z.boolean(),
  /** What the device said, for the grant's Error; '' when ok. */
  error: z.string().max(4000).default(''),
});
export type EntryResult = z.infer<typeof EntryResult>;

/** Answers a `state` or an `apply`, naming its generation. */
export const ResultMessage = z.object({
  type: z.literal('result'),
  version,
  generation: z.number().int().min(0),
  results: z.array(EntryResult),
});

export const AgentToServerMessage = z.discriminatedUnion('type', [HelloMessage, HeartbeatMessage, ResultMessage]);
export type AgentToServerMessage = z.infer<typeof AgentToServerMessage>;
export type HelloMessage = z.infer<typeof HelloMessage>;
export type ResultMessage = z.infer<typeof ResultMessage>;

// ---- server → agent ----

/**
 * The whole desired state, sent after every hello and whenever a knoc or backend of the agent
 * changes. The agent converges: adds what is missing, removes what is not listed.
 */
export const StateMessage = z.object({
  type: z.literal('state'),
  version,
  generation: z.number().int().min(1),
  knocs: z.array(AgentKnoc),
  entries: z.array(DesiredEntry),
});

/** Incremental changes at one generation. */
export const ApplyMessage = z.object({
  type: z.literal('apply'),
  version,
  generation: z.number().int().min(1),
  add: z.array(DesiredEntry),
  remove: z.array(EntryKey),
});

/** Answers a heartbeat; the agent reconnects when these stop. */
export const HeartbeatAckMessage = z.object({ type: z.literal('heartbeat-ack'), version });

/** The server is closing the connection on purpose (e.g. the token was rotated or the agent deleted). */
export const GoodbyeMessage = z.object({ type: z.literal('goodbye'), version, reason: z.string() });

export const ServerToAgentMessage = z.discriminatedUnion('type', [
  StateMessage,
  ApplyMessage,
  HeartbeatAckMessage,
  GoodbyeMessage,
]);
export type ServerToAgentMessage = z.infer<typeof ServerToAgentMessage>;
export type StateMessage = z.infer<typeof StateMessage>;
export type ApplyMessage = z.infer<typeof ApplyMessage>;

/** WebSocket close codes the protocol uses (4000–4999 are the application's). */
export const AgentCloseCodes = {
  /** The token is unknown or was rotated: do not retry quickly. */
  unauthorised: 4001,
  /** A newer connection for the same agent replaced this one. */
  replaced: 4002,
  /** A message failed validation. */
  protocolError: 4003,
  /** The server is shutting down. */
  serverStopping: 4004,
  /** No heartbeat for too long. */
  heartbeatTimeout: 4005,
} as const;

/** The agent sends a heartbeat this often by default; the server calls it offline after 3 misses. */
export const AGENT_HEARTBEAT_SECONDS_DEFAULT = 15;
export const AGENT_OFFLINE_AFTER_SECONDS = 60;

/** Device timeouts (ipset/nftables) are clamped to this range: never 0, which would mean "forever". */
export const DEVICE_TIMEOUT_MIN_SECONDS = 1;
export const DEVICE_TIMEOUT_MAX_SECONDS = 2_147_483;

/** knocproxy's admission cookie (the spec's proxy cookie). */
export const KNOCPROXY_COOKIE_MAX_AGE_SECONDS = 25_200;
