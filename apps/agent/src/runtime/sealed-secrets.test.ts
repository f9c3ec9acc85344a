import { createPublicKey, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentSealingKeyPayload, type AgentKnoc } from '@postern/protocol';
import { sealToAgent } from '@postern/protocol/sealing';
import { loadOrCreateAgentKey } from '../config/agent-key.js';
import { createConfigFixture } from '../test-support/config-fixture.js';
import { FakeDriver } from '../test-support/fake-driver.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { openKnoc, openingDrivers } from './sealed-secrets.js';

function agentKey() {
  const fixture = createConfigFixture();
  try {
    return loadOrCreateAgentKey(fixture.path('state/agent-key.pem'), 'keyFile').key;
  } finally {
    fixture.remove();
  }
}

/** A script knoc whose backend and knoc carry values sealed to `sealingPublicKey`. */
function sealedKnoc(sealingPublicKey: string, aclId = 'k1') {
  const backendId = `backend-${aclId}`;
  return testKnoc(aclId, {
    backendType: 'fortios',
    backendId,
    backend: {
      Url: 'https://fw.example.com',
      Bearer: sealToAgent(sealingPublicKey, 'bearer-secret', { owner: 'backend', ownerId: backendId, field: 'Bearer' }),
    },
    acl: {
      EnvVars: [
        {
          Name: 'TOKEN',
          Value: sealToAgent(sealingPublicKey, 'env-secret', { owner: 'knoc', ownerId: aclId, field: 'EnvVars.TOKEN' }),
          Sensitive: true,
        },
        { Name: 'PLAIN', Value: 'visible', Sensitive: false },
      ],
    },
  } as never);
}

describe('secrets sealed to the agent', () => {
  it('the agent key vouches for its sealing key and opens what was sealed to it', () => {
    const key = agentKey();
    const identity = createPublicKey({ key: Buffer.from(key.publicKey, 'base64url'), format: 'der', type: 'spki' });
    const payload = Buffer.from(agentSealingKeyPayload(key.publicKey, key.sealingKey.publicKey), 'utf8');
    expect(verify(null, payload, identity, Buffer.from(key.sealingKey.signature, 'base64url'))).toBe(true);
    const place = { owner: 'backend', ownerId: 'b', field: 'Password' } as const;
    expect(key.open(sealToAgent(key.sealingKey.publicKey, 'p@ss', place), place)).toBe('p@ss');
  });

  it('does not open a value sealed for another place', () => {
    const key = agentKey();
    const sealed = sealToAgent(key.sealingKey.publicKey, 'p@ss', { owner: 'backend', ownerId: 'b', field: 'Password' });
    expect(() => key.open(sealed, { owner: 'backend', ownerId: 'other', field: 'Password' })).toThrow(
      /authentication failed/,
    );
    expect(() => key.open(sealed, { owner: 'knoc', ownerId: 'b', field: 'Password' })).toThrow(/authentication failed/);
  });

  it('opens backend secrets and sensitive variables of a knoc, leaving the rest as sent', () => {
    const key = agentKey();
    const knoc = sealedKnoc(key.sealingKey.publicKey);
    const opened = openKnoc((sealed, place) => key.open(sealed, place), knoc);
    expect(opened).toMatchObject({
      ok: true,
      knoc: {
        backend: { Url: 'https://fw.example.com', Bearer: 'bearer-secret' },
        acl: {
          EnvVars: [
            { Name: 'TOKEN', Value: 'env-secret', Sensitive: true },
            { Name: 'PLAIN', Value: 'visible', Sensitive: false },
          ],
        },
      },
    });
  });

  it('hands drivers the opened knoc, the same object on every call', async () => {
    const key = agentKey();
    const fake = new FakeDriver('fortios');
    const drivers = openingDrivers(new Map([['fortios', fake]]), (sealed, place) => key.open(sealed, place));
    const knoc = sealedKnoc(key.sealingKey.publicKey);
    const driver = drivers.get('fortios');
    expect(await driver?.apply(knoc, [testEntry('k1', '192.0.2.1')])).toEqual([
      { ip: '192.0.2.1', ok: true, error: '' },
    ]);
    await driver?.remove(knoc, [testEntry('k1', '192.0.2.1')]);
    const [apply, remove] = fake.calls;
    expect(apply?.knoc.backend).toMatchObject({ Bearer: 'bearer-secret' });
    expect(remove?.knoc).toBe(apply?.knoc);
  });

  it('a knoc whose secret does not open fails its entries with a clear reason, never the value', async () => {
    const key = agentKey();
    const other = agentKey();
    const fake = new FakeDriver('fortios');
    const drivers = openingDrivers(new Map([['fortios', fake]]), (sealed, place) => key.open(sealed, place));
    const driver = drivers.get('fortios');
    // Sealed to another agent (the backend moved, or this agent's token was rotated).
    const knoc = sealedKnoc(other.sealingKey.publicKey);
    const outcomes = await driver?.apply(knoc, [testEntry('k1', '192.0.2.1'), testEntry('k1', '192.0.2.2')]);
    expect(outcomes).toHaveLength(2);
    for (const outcome of outcomes ?? []) {
      expect(outcome.ok).toBe(false);
      expect(outcome.error).toMatch(
        /cannot open the secret Bearer of this knoc's backend: sealed to another agent key.*re-enter/,
      );
      expect(outcome.error).not.toContain('bearer-secret');
    }
    expect(fake.calls).toEqual([]);
    await expect(driver?.list(knoc)).rejects.toThrow(/cannot open the secret Bearer/);
    await expect(driver?.flush(knoc)).rejects.toThrow(/cannot open the secret Bearer/);
    // configure still sets up the knocs that open.
    const good = sealedKnoc(key.sealingKey.publicKey, 'k2');
    await expect(driver?.configure?.([knoc, good])).rejects.toThrow(/k1: this agent cannot open/);
    expect(fake.configured).toEqual([['k2']]);
  });

  it('opens the knocs of driver methods it does not know, and leaves the rest alone', async () => {
    const key = agentKey();
    class VerifyingDriver extends FakeDriver {
      readonly #seen: unknown[] = [];
      verify(knoc: AgentKnoc, attempt: number): Promise<unknown[]> {
        this.#seen.push(knoc.backend, attempt);
        return Promise.resolve(this.#seen);
      }
    }
    const fake = new VerifyingDriver('fortios');
    const drivers = openingDrivers(new Map([['fortios', fake]]), (sealed, place) => key.open(sealed, place));
    const driver = drivers.get('fortios') as unknown as VerifyingDriver;
    const knoc = sealedKnoc(key.sealingKey.publicKey);
    expect(await driver.verify(knoc, 2)).toEqual([expect.objectContaining({ Bearer: 'bearer-secret' }), 2]);
    await expect(driver.verify(sealedKnoc(agentKey().sealingKey.publicKey), 3)).rejects.toThrow(
      /cannot open the secret Bearer/,
    );
    await driver.close();
    expect(fake.closed).toBe(true);
  });

  it('a value altered in transit does not open', () => {
    const key = agentKey();
    const knoc = sealedKnoc(key.sealingKey.publicKey);
    const moved = { ...knoc, aclId: 'k9' };
    const opened = openKnoc((sealed, place) => key.open(sealed, place), moved);
    expect(opened).toEqual({
      ok: false,
      error: expect.stringMatching(
        /cannot open the secret EnvVars.TOKEN of this knoc: authentication failed/,
      ) as string,
    });
  });
});
