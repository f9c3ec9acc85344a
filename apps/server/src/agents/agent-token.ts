import { createHash } from 'node:crypto';
import { AGENT_TOKEN_MIN_LENGTH } from '@postern/protocol';
import type { SecretContext } from '../secrets/secret-box.js';
import { generateToken } from '../lib/random-secret.js';

/** A new agent token: 32 random bytes in base64url (43 characters, well above the protocol's minimum). */
export function generateAgentToken(): string {
  const token = generateToken();
  if (token.length < AGENT_TOKEN_MIN_LENGTH) throw new Error('agent token shorter than the protocol allows');
  return token;
}

/**
 * SHA-256 of the token, as agents.token_hash holds it. A plain hash is enough for 256 random bits
 * (nothing to brute-force), and it lets the store find the agent by an index lookup.
 */
export function hashAgentToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Where an agent's sealed token lives, bound into its ciphertext. */
export function agentTokenSecretContext(agentId: string): SecretContext {
  return { table: 'agents', column: 'token_secret', rowId: agentId };
}
