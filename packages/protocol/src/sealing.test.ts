import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SEALED_PREFIX,
  SealedValueError,
  deriveSealingKey,
  openSealed,
  parseSealingPublicKey,
  sealToAgent,
  sealedValueKeyId,
  sealingKeyId,
} from './sealing.js';

const place = { owner: 'backend', ownerId: 'b-1', field: 'Password' } as const;

function agentSealingKey() {
  return deriveSealingKey(generateKeyPairSync('ed25519').privateKey);
}

describe('sealing to an agent', () => {
  it('round-trips and names the recipient key', () => {
    const agent = agentSealingKey();
    const sealed = sealToAgent(agent.publicKey, 'hunter2', place);
    expect(sealed.startsWith(SEALED_PREFIX)).toBe(true);
    expect(sealed).not.toContain('hunter2');
    expect(sealedValueKeyId(sealed)).toBe(sealingKeyId(agent.publicKey));
    expect(openSealed(agent.privateKey, sealed, place)).toBe('hunter2');
  });

  it('does not open with another agent key', () => {
    const sealed = sealToAgent(agentSealingKey().publicKey, 'hunter2', place);
    expect(() => openSealed(agentSealingKey().privateKey, sealed, place)).toThrow(SealedValueError);
  });

  it('does not open in another place (owner, id or field)', () => {
    const agent = agentSealingKey();
    const sealed = sealToAgent(agent.publicKey, 'hunter2', place);
    for (const other of [
      { ...place, owner: 'knoc' as const },
      { ...place, ownerId: 'b-2' },
      { ...place, field: 'ApiKey' },
    ]) {
      expect(() => openSealed(agent.privateKey, sealed, other)).toThrow(/authentication failed/);
    }
  });

  it('refuses an altered value', () => {
    const agent = agentSealingKey();
    const sealed = sealToAgent(agent.publicKey, 'hunter2', place);
    const bytes = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64url');
    bytes[bytes.length - 1] = (bytes.at(-1) ?? 0) ^ 1;
    expect(() => openSealed(agent.privateKey, SEALED_PREFIX + bytes.toString('base64url'), place)).toThrow(
      SealedValueError,
    );
    expect(() => openSealed(agent.privateKey, 'hunter2', place)).toThrow(/not a sealed value/);
  });

  it('derives the same sealing key from the same identity key, a canonical X25519 key', () => {
    const identity = generateKeyPairSync('ed25519').privateKey;
    const a = deriveSealingKey(identity);
    expect(deriveSealingKey(identity).publicKey).toBe(a.publicKey);
    expect(parseSealingPublicKey(a.publicKey)).not.toBeNull();
    expect(parseSealingPublicKey(`${a.publicKey}A`)).toBeNull();
    expect(parseSealingPublicKey(a.publicKey)?.export({ format: 'der', type: 'spki' }).toString('base64url')).toBe(
      a.publicKey,
    );
    const ed25519 = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
    expect(parseSealingPublicKey(ed25519.toString('base64url'))).toBeNull();
    expect(agentSealingKey().publicKey).not.toBe(a.publicKey);
  });
});
