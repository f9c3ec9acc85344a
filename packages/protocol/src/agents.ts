import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { Id, RequiredName } from './common.js';
import { NFTABLES_FAMILIES } from './backends.js';

/** What an agent reports about its host in `hello`; the admin console shows and filters on it. */
export const AgentCapabilities = z.object({
  'os-release': z.object({ NAME: z.string(), VERSION: z.string() }),
  ipset: z.object({
    command_available: z.boolean(),
    /** The agent may run ipset: as root, or through sudo when its configuration says so. */
    sudo_enabled: z.boolean(),
    /** The sets the agent's configuration allows and that exist on the host. */
    ipsets: z.array(z.object({ name: z.string(), address_family: z.enum(['inet', 'inet6']) })),
  }),
  /**
   * nftables, like ipset: whether nft runs, and the sets the agent's configuration allows that exist,
   * with their table and family. Optional: an agent older than the nftables backend reports none.
   */
  nftables: z
    .object({
      command_available: z.boolean(),
      sudo_enabled: z.boolean(),
      sets: z.array(
        z.object({
          family: z.enum(NFTABLES_FAMILIES),
          table: z.string(),
          name: z.string(),
          /** The set's element type: ipv4_addr or ipv6_addr (other types are not reported). */
          type: z.enum(['ipv4_addr', 'ipv6_addr']),
          /** The set has `flags timeout`: entries expire in the kernel (required by Postern). */
          timeout: z.boolean(),
        }),
      ),
    })
    .optional(),
  /** Script backends are off unless the agent's configuration enables them. */
  script: z.object({ enabled: z.boolean() }),
  /** The HAProxy runtime API the agent was configured with; '' when none. */
  haproxy: z.object({ socket_location: z.string() }),
  /** Backend types this agent build can drive (ipset, haproxy, script, knocproxy, vendors…). */
  backend_types: z.array(z.string()),
});
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;

/** A backend as listed on its agent. */
export const AgentBackendSummary = z.object({ ID: Id, Name: z.string(), Type: z.string() });

export const AgentRecord = z.object({
  ID: Id,
  Name: z.string(),
  /** The agent's token, decrypted for the admin to copy into the install command. */
  Token: z.string(),
  /** ISO instant of the last message from the agent, or null: awaiting connection. */
  LastSeen: z.string().nullable(),
  /** The agent's version from its last hello, or null. */
  Version: z.string().nullable(),
  /** The address the agent connected from, without a port. */
  ExternalIP: z.string().nullable(),
  Capabilities: AgentCapabilities.nullable(),
  /** The agent holds a live connection to the server now. */
  Online: z.boolean(),
  /**
   * ISO instant the agent registered its key with its token, or null: not enrolled yet (a new agent,
   * or one whose token was rotated). An enrolled agent's token connects only with that key.
   */
  EnrolledAt: z.string().nullable(),
  /** SHA-256 of the registered public key ("SHA256:" and base64, as the agent logs it), or null. */
  KeyFingerprint: z.string().nullable(),
  Backends: z.array(AgentBackendSummary),
  LastModifiedAt: z.string(),
  LastModifiedBy: z.string(),
});
export type AgentRecord = z.infer<typeof AgentRecord>;
export const AgentResponse = dataEnvelope(AgentRecord);
export const AgentListResponse = dataEnvelope(z.array(AgentRecord));

/**
 * POST /api/admin/agents. The server makes the token; a Token sent by an older console is ignored,
 * because a token an admin typed is a token somebody could guess.
 */
export const AgentCreateBody = z.object({ Name: RequiredName, Token: z.string().optional() });
export type AgentCreateBody = z.infer<typeof AgentCreateBody>;

/** PUT /api/admin/agents/{id}: renames. The token changes only through the rotate call. */
export const AgentUpdateBody = z.object({ ID: Id, Name: RequiredName, Token: z.string().optional() });
export type AgentUpdateBody = z.infer<typeof AgentUpdateBody>;

/** All-zero id: "no agent" in the spec's knoc and backend payloads. */
export const NO_AGENT_ID = '00000000-0000-0000-0000-000000000000';
