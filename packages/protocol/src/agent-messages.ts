import { z } from 'zod';
import { AgentCapabilities } from './agents.js';
import { BackendType } from './backends.js';

/**
 * The agent protocol: JSON text frames over one WebSocket at AGENT_CONNECT_PATH, each validated by
 * these schemas on both ends. Every message carries `type` and the protocol `version`.
 *
 * A connection opens with the server's `challenge`; the agent answers with its `hello`, carrying a
 * key proof; only once that verifies does the server send anything else (the full `state` first).
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

// ---- authentication ----

/**
 * The token in the upgrade's Authorization header only names the agent; the agent is authenticated
 * by a key it holds. On the first connection the agent enrols the public key of a key pair it made;
 * every connection (that one included) proves possession of the private key by signing
 * {@link agentProofPayload} for the connection's `challenge`. A token that has enrolled a key
 * connects only with that key until an admin rotates the token, which drops the key.
 */
export const AGENT_PROOF_LABEL = 'postern-agent-proof-v1';

/** base64url without padding: the alphabet of nonces, keys and signatures on the wire. */
const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/);

/**
 * The text the agent signs (UTF-8) for one connection: a fixed label, so a signature made for
 * anything else never verifies, then the server's nonce and the agent's public key, one a line
 * (neither base64url value can hold a newline, so the parts cannot be shifted).
 */
export function agentProofPayload(nonce: string, publicKey: string): string {
  return `${AGENT_PROOF_LABEL}\n${nonce}\n${publicKey}`;
}

/** Possession of the agent's key, for one connection's nonce. */
export const AgentKeyProof = z.object({
  /** The agent's Ed25519 public key: SubjectPublicKeyInfo DER in base64url. */
  publicKey: base64url.max(128),
  /** Ed25519 signature of agentProofPayload(nonce, publicKey), base64url. */
  signature: base64url.max(128),
});
export type AgentKeyProof = z.infer<typeof AgentKeyProof>;

// ---- agent → server ----

/** First message on every connection, sent once the server's challenge has arrived. */
export const HelloMessage = z.object({
  type: z.literal('hello'),
  version,
  agentVersion: z.string().max(64),
  capabilities: AgentCapabilities,
  /** The highest generation the agent has applied (from its state file); 0 when it has none. */
  generation: z.number().int().min(0),
  /** What the agent believes is applied, for the log and the server's view of the device. */
  applied: z.array(DesiredEntry).max(1_000_000),
  /**
   * The key proof for this connection's challenge. Optional in the schema only so that an agent
   * built before keys existed gets a clear refusal instead of a protocol error: the server admits
   * no connection without a valid one.
   */
  proof: AgentKeyProof.optional(),
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
 * The first message on every connection, before anything else: a fresh random nonce that lives only
 * in this connection, for the agent to sign in its hello.
 */
export const ChallengeMessage = z.object({
  type: z.literal('challenge'),
  version,
  /** At least 32 random bytes, base64url. */
  nonce: base64url.min(43).max(128),
});

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

/**
 * The server is closing the connection on purpose (e.g. the token was rotated, the agent deleted, or
 * its key proof refused); the reason says what the operator should do.
 */
export const GoodbyeMessage = z.object({ type: z.literal('goodbye'), version, reason: z.string() });

export const ServerToAgentMessage = z.discriminatedUnion('type', [
  ChallengeMessage,
  StateMessage,
  ApplyMessage,
  HeartbeatAckMessage,
  GoodbyeMessage,
]);
export type ServerToAgentMessage = z.infer<typeof ServerToAgentMessage>;
export type ChallengeMessage = z.infer<typeof ChallengeMessage>;
export type StateMessage = z.infer<typeof StateMessage>;
export type ApplyMessage = z.infer<typeof ApplyMessage>;

/** WebSocket close codes the protocol uses (4000–4999 are the application's). */
export const AgentCloseCodes = {
  /**
   * The token was rotated or the agent deleted, or the agent did not prove the key registered for
   * its token (the goodbye says which): do not retry quickly.
   */
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
