import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { BACKEND_TYPES, type AgentCapabilities } from '@postern/protocol';
import { deriveSealingKey } from '@postern/protocol/sealing';
import type { AppContext } from '../app-context.js';
import { uuidv7 } from '../lib/ids.js';
import { agentTokenSecretContext, generateAgentToken, hashAgentToken } from '../agents/agent-token.js';
import { insertAgentRow } from '../agents/agents.repo.js';

let sequence = 0;

/**
 * Capabilities of an agent that can drive every backend type: ipset and nftables usable with the
 * sets named, scripts on, an HAProxy socket. Override any part.
 */
export function agentCapabilities(overrides: Partial<AgentCapabilities> = {}): AgentCapabilities {
  return {
    'os-release': { NAME: 'Debian GNU/Linux', VERSION: '13 (trixie)' },
    ipset: {
      command_available: true,
      sudo_enabled: true,
      ipsets: [
        { name: 'postern4', address_family: 'inet' },
        { name: 'postern6', address_family: 'inet6' },
      ],
    },
    nftables: {
      command_available: true,
      sudo_enabled: true,
      sets: [
        { family: 'inet', table: 'postern', name: 'postern4', type: 'ipv4_addr', timeout: true },
        { family: 'inet', table: 'postern', name: 'postern6', type: 'ipv6_addr', timeout: true },
        // A set the admin made without `flags timeout`: Postern refuses to write it.
        { family: 'inet', table: 'postern', name: 'forever4', type: 'ipv4_addr', timeout: false },
        { family: 'ip', table: 'legacy', name: 'postern4', type: 'ipv4_addr', timeout: true },
      ],
    },
    script: { enabled: true },
    haproxy: { socket_location: '/var/run/haproxy.sock' },
    backend_types: [...BACKEND_TYPES],
    ...overrides,
  };
}

export interface GivenAgentOptions {
  name?: string;
  /** What the agent reported in its last hello; null (the default) for one that never connected. */
  capabilities?: AgentCapabilities | null;
  version?: string | null;
  /** A live connection that was seen just now (by ctx.clock); default false. */
  online?: boolean;
  /**
   * Whether it registered a sealing key (made as postern-agent makes it); default: when it connected
   * (capabilities given). An agent older than sealing has none.
   */
  sealing?: boolean;
}

/** An agent's sealing key pair, as postern-agent derives it from its identity key. */
export interface GivenSealingKey {
  privateKey: KeyObject;
  publicKey: string;
}

/** A sealing key pair like postern-agent's. */
export function givenSealingKey(): GivenSealingKey {
  return deriveSealingKey(generateKeyPairSync('ed25519').privateKey);
}

/** An agent row with a real token (hashed and sealed as the API stores it). */
export async function givenAgent(
  ctx: AppContext,
  options: GivenAgentOptions = {},
): Promise<{ id: string; name: string; token: string; sealing: GivenSealingKey | null }> {
  sequence += 1;
  const now = ctx.clock.now();
  const id = uuidv7(now);
  const name = options.name ?? `agent-${sequence}`;
  const token = generateAgentToken();
  await insertAgentRow(ctx.db, {
    id,
    name,
    tokenHash: hashAgentToken(token),
    tokenSecret: ctx.secrets.seal(token, agentTokenSecretContext(id)),
    createdAt: now,
    lastModifiedBy: 'test',
  });
  const capabilities = options.capabilities ?? null;
  const online = options.online ?? false;
  const sealing = (options.sealing ?? capabilities !== null) ? givenSealingKey() : null;
  // What the agent hub writes on hello; only the fields the test asked for.
  await ctx.db
    .updateTable('agents')
    .set({
      version: options.version ?? null,
      capabilities: capabilities === null ? null : JSON.stringify(capabilities),
      ...(online ? { connectionId: `test-connection-${sequence}`, lastSeen: now } : {}),
      ...(sealing === null ? {} : { sealingKey: sealing.publicKey, sealingKeyRegisteredAt: now }),
    })
    .where('id', '=', id)
    .execute();
  return { id, name, token, sealing };
}
