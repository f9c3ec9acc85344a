import { z } from 'zod';
import { AgentCapabilities } from './agents.js';
import { BACKEND_CONFIG_SCHEMAS, BACKEND_TYPES, type BackendType } from './backends.js';
import { ACL_CONFIG_SCHEMAS } from './knocs.js';

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
  /**
   * When the entry ends in the server's time (epoch ms: the latest ExpiresAt of its grants). A step
   * of the server's clock changes `ttlSeconds` but not this, so the agent raises an entry's deadline
   * only when this grew (an extension). Optional: an older server does not send it.
   */
  endsAt: z.number().int().min(0).optional(),
  /**
   * Read the device back after applying this entry and report what it holds (`readBack` in the
   * result): sent only for a knoc test's grant, so no other apply pays for a listing. Optional: an
   * older agent ignores it and reports no read-back.
   */
  verify: z.literal(true).optional(),
});
export type DesiredEntry = z.infer<typeof DesiredEntry>;

/**
 * What an agent found on the device after applying an entry it was asked to verify: the address is
 * there (or let through by the device's own rules), it is not, or the device cannot be read (a
 * script, a list the firewall fetches from the server, a listing that failed).
 */
export const DeviceReadBack = z.enum(['held', 'absent', 'unreadable']);
export type DeviceReadBack = z.infer<typeof DeviceReadBack>;

/**
 * The agent-side reading of a per-type config schema: the same fields and types, but every field may
 * be missing and none of the save-time rules (lengths, patterns, URL and host-name checks, defaults)
 * applies. Stored configs are never re-validated with the save-time rules, and an agent must accept
 * what an older server sends; a driver checks what it needs itself and fails the call naming the
 * field. Parsing returns the fields as sent: no defaults filled in, fields it does not know kept.
 */
export type LenientConfig<S extends z.ZodType> = Partial<z.input<S>>;

/** The rules-free twin of one field's schema, with the same input type. */
function loosen(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  switch (def.type) {
    case 'string':
      return z.string();
    case 'number':
      // A coerced number accepts anything on input (its input type is unknown).
      return def.coerce === true ? z.unknown() : z.number();
    case 'boolean':
      return z.boolean();
    case 'enum':
      return z.enum((schema as z.ZodEnum).options as [string, ...string[]]);
    case 'literal':
      return schema;
    case 'default':
    case 'prefault':
    case 'optional':
      return loosen(def.innerType as z.ZodType).optional();
    case 'nullable':
      return loosen(def.innerType as z.ZodType).nullable();
    case 'array':
      return z.array(loosen(def.element as z.ZodType));
    case 'object':
      return z.object(
        Object.fromEntries(
          Object.entries((schema as z.ZodObject).shape).map(([key, field]) => [key, loosen(field as z.ZodType)]),
        ),
      );
    case 'union':
      return z.union((def.options as z.ZodType[]).map(loosen) as [z.ZodType, z.ZodType, ...z.ZodType[]]);
    case 'pipe':
      // A transform or a pipe: what is sent is what its input side accepts.
      return loosen(def.in as z.ZodType);
    default:
      // A new kind of field: teach loosen() about it (the protocol's config-schemas test fails first).
      throw new Error(`loosen: unsupported schema type ${def.type}`);
  }
}

/** {@link LenientConfig} as a schema: every top-level field optional, no save-time rules. */
export function lenientConfig<S extends z.ZodObject>(schema: S): z.ZodType<LenientConfig<S>> {
  const shape = Object.entries(schema.shape).map(([key, field]) => [key, loosen(field as z.ZodType).optional()]);
  return z.looseObject(Object.fromEntries(shape)) as unknown as z.ZodType<LenientConfig<S>>;
}

type BackendSchemas = typeof BACKEND_CONFIG_SCHEMAS;
type AclSchemas = typeof ACL_CONFIG_SCHEMAS;

/** The backend fields the agent receives for a backend of type T (secrets sealed to the agent). */
export type AgentBackendConfig<T extends BackendType> = LenientConfig<BackendSchemas[T]>;
/** The knoc fields the agent receives for a knoc of type T (sensitive values sealed to the agent). */
export type AgentAclConfig<T extends BackendType> = LenientConfig<AclSchemas[T]>;

/**
 * One knoc the agent enforces on a backend of type T: its backend's config, the knoc's own config,
 * and the values a driver needs. Secrets (a backend type's secret fields, sensitive script variable
 * values) arrive sealed to the agent's sealing key (`sealed:v1:…`, see `@postern/protocol/sealing`);
 * the agent opens them only on the way into a driver. An older server may send them in plain text.
 */
export interface AgentKnocOf<T extends BackendType> {
  aclId: string;
  /** The knoc's description, passed to scripts as knoc_aclname when the script has no Name. */
  name: string;
  url: string;
  backendId: string;
  backendType: T;
  /** The backend's fields (e.g. { Protocol, Address } for haproxy), secrets sealed to the agent. */
  backend: AgentBackendConfig<T>;
  /** The knoc's fields (e.g. { V4SetName, V6SetName } for ipset), sensitive values sealed to the agent. */
  acl: AgentAclConfig<T>;
}

/** Any knoc the agent enforces: a union discriminated by `backendType`. */
export type AgentKnoc = { [T in BackendType]: AgentKnocOf<T> }[BackendType];

/** The schema of one backend type's knocs. */
function agentKnocOfType<T extends BackendType>(type: T) {
  return z.object({
    aclId: z.string().min(1),
    name: z.string(),
    url: z.string(),
    backendId: z.string().min(1),
    backendType: z.literal(type),
    backend: lenientConfig(BACKEND_CONFIG_SCHEMAS[type] as z.ZodObject),
    acl: lenientConfig(ACL_CONFIG_SCHEMAS[type] as z.ZodObject),
  });
}

export const AgentKnoc: z.ZodType<AgentKnoc> = z.discriminatedUnion(
  'backendType',
  BACKEND_TYPES.map(agentKnocOfType) as unknown as [ReturnType<typeof agentKnocOfType>],
) as unknown as z.ZodType<AgentKnoc>;

/**
 * Whether `value` is a knoc an agent accepts (see {@link AgentKnoc}); the value itself is unchanged,
 * so what is sent is exactly what was built.
 */
export function isAgentKnoc(value: unknown): value is AgentKnoc {
  return AgentKnoc.safeParse(value).success;
}

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

/**
 * The label of the text an agent signs to register its sealing key: secrets meant for it (vendor
 * credentials, sensitive script variables) are sealed by the server to this X25519 key.
 */
export const AGENT_SEALING_KEY_LABEL = 'postern-agent-sealing-key-v1';

/** The text the agent signs with its identity key to vouch for its sealing key (UTF-8). */
export function agentSealingKeyPayload(identityPublicKey: string, sealingPublicKey: string): string {
  return `${AGENT_SEALING_KEY_LABEL}\n${identityPublicKey}\n${sealingPublicKey}`;
}

/** The agent's X25519 sealing key, signed by its identity key. */
export const AgentSealingKey = z.object({
  /** X25519 SubjectPublicKeyInfo DER, base64url. */
  publicKey: base64url.max(128),
  /** Ed25519 signature by the identity key of agentSealingKeyPayload(identity key, publicKey). */
  signature: base64url.max(128),
});
export type AgentSealingKey = z.infer<typeof AgentSealingKey>;

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
  /**
   * The key secrets for this agent are sealed to. Optional: an agent older than sealing has none,
   * and receives no sealed secrets (the server refuses to store secrets for it).
   */
  sealingKey: AgentSealingKey.optional(),
  /** The agent's wall clock when it sent this (epoch ms), for the server's clock checks. Optional: older agents. */
  wallClockMs: z.number().int().min(0).optional(),
});

export const HeartbeatMessage = z.object({
  type: z.literal('heartbeat'),
  version,
  /** As in the hello: the agent's wall clock when it sent this (epoch ms). */
  wallClockMs: z.number().int().min(0).optional(),
});

/** The outcome of one entry operation. */
export const EntryResult = EntryKey.extend({
  action: z.enum(['add', 'remove']),
  ok: z.boolean(),
  /** What the device said, for the grant's Error; '' when ok. */
  error: z.string().max(4000).default(''),
  /** For an applied entry sent with `verify`: what reading the device back found. */
  readBack: DeviceReadBack.optional(),
  /** Why the device could not be read back (with `unreadable`). */
  readBackDetail: z.string().max(1000).optional(),
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
