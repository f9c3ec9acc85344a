import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fakeAgentKey, proveKey } from '../test-support/fake-agent.js';
import { agentKeyFingerprint, newAgentNonce, parseAgentPublicKey, verifyAgentProof } from './agent-key.js';

describe('agent key proofs', () => {
  const key = fakeAgentKey();
  const nonce = newAgentNonce();

  it('accepts a proof made with the key for this nonce', () => {
    expect(verifyAgentProof(proveKey(key, nonce), nonce)).toBe(true);
  });

  it('refuses the same proof for another nonce', () => {
    expect(verifyAgentProof(proveKey(key, nonce), newAgentNonce())).toBe(false);
  });

  it('refuses a signature presented with another public key', () => {
    const other = fakeAgentKey();
    expect(verifyAgentProof({ ...proveKey(key, nonce), publicKey: other.publicKey }, nonce)).toBe(false);
  });

  it('refuses a signature over the nonce alone, without the label and key (domain separation)', () => {
    const signature = sign(null, Buffer.from(nonce, 'utf8'), key.privateKey).toString('base64url');
    expect(verifyAgentProof({ publicKey: key.publicKey, signature }, nonce)).toBe(false);
  });

  it('refuses a signature of the wrong length', () => {
    const signature = Buffer.from(proveKey(key, nonce).signature, 'base64url').subarray(0, 63).toString('base64url');
    expect(verifyAgentProof({ publicKey: key.publicKey, signature }, nonce)).toBe(false);
  });

  it('takes only an Ed25519 key in its canonical SPKI DER form', () => {
    expect(parseAgentPublicKey(key.publicKey)?.asymmetricKeyType).toBe('ed25519');
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(parseAgentPublicKey(ec.export({ format: 'der', type: 'spki' }).toString('base64url'))).toBeNull();
    const padded = Buffer.concat([Buffer.from(key.publicKey, 'base64url'), Buffer.from([0])]);
    expect(parseAgentPublicKey(padded.toString('base64url'))).toBeNull();
    expect(parseAgentPublicKey('not-a-key')).toBeNull();
    const x25519 = generateKeyPairSync('x25519').publicKey;
    expect(parseAgentPublicKey(x25519.export({ format: 'der', type: 'spki' }).toString('base64url'))).toBeNull();
    // The same bytes in another spelling: padded base64, and base64 with + and /.
    expect(parseAgentPublicKey(Buffer.from(key.publicKey, 'base64url').toString('base64'))).toBeNull();
    expect(parseAgentPublicKey(`${key.publicKey}=`)).toBeNull();
  });

  it('builds from the key the same key Node parses from its DER', () => {
    const parsed = parseAgentPublicKey(key.publicKey);
    expect(parsed?.export({ format: 'der', type: 'spki' }).toString('base64url')).toBe(key.publicKey);
  });

  it('fingerprints a key as SHA256: and the unpadded base64 digest of its DER', () => {
    const digest = createHash('sha256').update(Buffer.from(key.publicKey, 'base64url')).digest('base64');
    expect(agentKeyFingerprint(key.publicKey)).toBe(`SHA256:${digest.replace(/=+$/, '')}`);
    expect(agentKeyFingerprint(key.publicKey)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
  });

  it('makes a new 256-bit nonce each time', () => {
    const nonces = new Set(Array.from({ length: 100 }, () => newAgentNonce()));
    expect(nonces.size).toBe(100);
    expect(Buffer.from(newAgentNonce(), 'base64url')).toHaveLength(32);
  });
});
