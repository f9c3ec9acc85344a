import { ErrorCodes } from '@postern/protocol';
import {
  isSealedValue,
  sealToAgent,
  sealedValueKeyId,
  sealingKeyId,
  type SealedPlace,
} from '@postern/protocol/sealing';
import { BadRequestError } from '../errors.js';
import { SecretUnreadableError, type SecretBox, type SecretContext } from './secret-box.js';

/**
 * Vendor credentials and sensitive script variables are sealed to the X25519 key of the agent that
 * uses them the moment they arrive, and stored only so: the server keeps no key that opens them.
 * Values sealed with the server's SecretBox before sealing existed ("legacy") are re-sealed when
 * the agent registers its key (see resealLegacySecrets); until then they are sent as before.
 */

/** The agent a backend's secrets are sealed to. */
export interface SealingRecipient {
  id: string;
  name: string;
  /** The agent's registered sealing key (SPKI DER, base64url); null when it has sent none yet. */
  sealingKey: string | null;
}

/**
 * `plaintext` sealed to the agent for `place`. An agent without a sealing key (older than sealing,
 * or not connected since its token was rotated) cannot receive secrets: 400 err.agentCannotSeal,
 * Extra the agent's name.
 */
export function sealForRecipient(recipient: SealingRecipient | null, plaintext: string, place: SealedPlace): string {
  const sealingKey = recipient?.sealingKey ?? null;
  if (sealingKey === null) {
    throw new BadRequestError({ code: ErrorCodes.agentCannotSeal, extra: recipient?.name ?? 'AgentID' });
  }
  return sealToAgent(sealingKey, plaintext, place);
}

/** Whether a stored value is sealed to this agent key (and so can be kept for it). */
export function isSealedTo(value: unknown, sealingKey: string | null): boolean {
  return isSealedValue(value) && sealingKey !== null && sealedValueKeyId(value) === sealingKeyId(sealingKey);
}

/** Whether a stored value is a SecretBox ciphertext from before sealing to agents. */
export function isLegacySealed(value: unknown): value is string {
  return typeof value === 'string' && !isSealedValue(value);
}

/**
 * A stored secret as the agent is sent it: sealed to its key as stored; a legacy value opened with
 * the server key and sealed to the agent (or, for an agent older than sealing, sent as before over
 * its TLS connection). A value sealed to any other key cannot be sent: SecretUnreadableError, which
 * the caller reports and turns into the knoc's grant error.
 */
export function secretForAgent(
  secrets: SecretBox,
  stored: string,
  context: SecretContext,
  place: SealedPlace,
  sealingKey: string | null,
): string {
  if (isSealedValue(stored)) {
    if (isSealedTo(stored, sealingKey)) return stored;
    throw new SecretUnreadableError(
      context,
      'sealed to another agent key (the backend moved to another agent, or its token was rotated)',
    );
  }
  const plain = secrets.open(stored, context);
  return sealingKey === null ? plain : sealToAgent(sealingKey, plain, place);
}
