import { createHash, randomBytes, verify, type KeyObject } from 'node:crypto';
import { parseOkpPublicKey } from '@postern/protocol/sealing';
import { agentProofPayload, type AgentKeyProof } from '@postern/protocol';

/** Bytes of a challenge nonce: 256 bits, so no two connections ever share one. */
const NONCE_BYTES = 32;
/** An Ed25519 signature is always 64 bytes. */
const ED25519_SIGNATURE_BYTES = 64;

/** A fresh nonce for one connection's challenge (base64url). */
export function newAgentNonce(): string {
  return randomBytes(NONCE_BYTES).toString('base64url');
}

/**
 * The key an agent presented, when it is an Ed25519 public key in the canonical encoding (SPKI DER,
 * base64url, exactly as Node exports it); null for anything else. Requiring the canonical form
 * means one key has one spelling, so comparing with the registered key is a string comparison.
 */
export function parseAgentPublicKey(publicKey: string): KeyObject | null {
  return parseOkpPublicKey(publicKey, 'Ed25519');
}

/**
 * Whether the proof's signature, made with the proof's own key, covers this connection's nonce.
 * It says nothing about whether that key is the agent's: the caller compares it with the
 * registered one (or enrols it).
 */
export function verifyAgentProof(proof: AgentKeyProof, nonce: string): boolean {
  const key = parseAgentPublicKey(proof.publicKey);
  if (key === null) return false;
  const signature = Buffer.from(proof.signature, 'base64url');
  if (signature.length !== ED25519_SIGNATURE_BYTES) return false;
  try {
    return verify(null, Buffer.from(agentProofPayload(nonce, proof.publicKey), 'utf8'), key, signature);
  } catch {
    return false;
  }
}

/**
 * A public key's fingerprint as the agent logs it and the audit log and console show it:
 * "SHA256:" and the unpadded base64 of the SHA-256 of the SPKI DER (OpenSSH's style).
 */
export function agentKeyFingerprint(publicKey: string): string {
  const digest = createHash('sha256').update(Buffer.from(publicKey, 'base64url')).digest('base64');
  return `SHA256:${digest.replace(/=+$/, '')}`;
}
