import { sign } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentCloseCodes,
  AuditActions,
  agentSealingKeyPayload,
  type AgentRecord,
  type AuditEntry,
} from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenUser } from '../test-support/factories.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import {
  FakeAgent,
  fakeAgentKey,
  openAsAgent,
  proveKey,
  sealingKeyOf,
  type FakeAgentKey,
} from '../test-support/fake-agent.js';
import { isSealedValue } from '@postern/protocol/sealing';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { givenBackend, givenEnforcedKnoc } from '../test-support/knoc-factories.js';
import { recentAudit } from '../audit/audit.js';
import { agentKeyFingerprint } from '../agents/agent-key.js';
import { AgentRefusals } from '../agents/agent-enrolment.js';
import { REFUSED_CONNECTION_AUDIT_WINDOW_MS } from '../agents/refused-connection-audit.js';

/** The text an agent's identity key signs to vouch for `sealingPublicKey`. */
function signSealingKey(key: FakeAgentKey, sealingPublicKey: string): string {
  const payload = Buffer.from(agentSealingKeyPayload(key.publicKey, sealingPublicKey), 'utf8');
  return sign(null, payload, key.privateKey).toString('base64url');
}

/** A vendor secret the agent's state would carry: a refused connection must never see it. */
const BEARER = 'fortios-bearer-secret-0123456789';

describe.each(bothStores())('agent enrolment (%s)', (kind) => {
  const t = useTestApp(kind, { config: { licencePublicKeys: TEST_LICENCE_KEYS }, listen: true });
  let agentId: string;
  let token: string;
  let aclId: string;
  let backendId: string;
  let adminCookie: string | null;
  const opened: FakeAgent[] = [];

  beforeEach(async () => {
    const created = await givenAgent(t.ctx, { name: 'edge' });
    agentId = created.id;
    token = created.token;
    adminCookie = null;
    const backend = await givenBackend(t.ctx, {
      type: 'fortios',
      agentId,
      config: { Url: 'https://fw.example.com', Bearer: BEARER },
    });
    backendId = backend.id;
    aclId = (await givenEnforcedKnoc(t.ctx, { backendId: backend.id, type: 'fortios', aclConfig: { Name: 'ops' } })).id;
  });
  afterEach(async () => {
    for (const agent of opened.splice(0)) await agent.disconnect();
  });

  /** A fake agent with this token (its own new key unless one is given), disconnected after the test. */
  const fakeAgent = (withToken = token, key = fakeAgentKey(), sealing = true) => {
    const agent = new FakeAgent(t.baseUrl, withToken, { key, sealing });
    opened.push(agent);
    return agent;
  };
  const storedAgent = () =>
    t.ctx.db.selectFrom('agents').selectAll().where('id', '=', agentId).executeTakeFirstOrThrow();
  const auditOf = async (action: string): Promise<AuditEntry['Entry'][string][]> =>
    (await recentAudit(t.ctx.db, 100)).flatMap((entry) =>
      entry.Entry[action] === undefined ? [] : [entry.Entry[action]],
    );
  const adminCall = async (method: 'GET' | 'POST', url: string) => {
    adminCookie ??= await givenAdminSession(t);
    const { status, body, response } = await adminClient(t.app, adminCookie).request<{ data: AgentRecord }>(
      method,
      url,
    );
    expect(status, response.body).toBe(200);
    return body.data;
  };
  /** Everything a connection received was its challenge and, last, a goodbye: no state, no secret. */
  const expectNothingButChallengeAndGoodbye = (agent: FakeAgent) => {
    expect(agent.messages.map((message) => message.type)).toEqual(['challenge', 'goodbye']);
    expect(JSON.stringify(agent.messages)).not.toContain(BEARER);
  };

  it('enrols the key of the first connection, audits it, and admits a reconnect with the same key', async () => {
    const agent = fakeAgent();
    await agent.connect();

    const row = await storedAgent();
    expect(row.publicKey).toBe(agent.key.publicKey);
    expect(Number(row.enrolledAt)).toBe(t.clock.now());
    const fingerprint = agentKeyFingerprint(agent.key.publicKey);
    const sealingKey = sealingKeyOf(agent.key).publicKey;
    expect(row.sealingKey).toBe(sealingKey);
    expect(await auditOf(AuditActions.AgentEnrolled)).toEqual([
      {
        AgentName: 'edge',
        IpAddress: '127.0.0.1',
        Description: `Key ${fingerprint}; sealing key ${agentKeyFingerprint(sealingKey)}`,
      },
    ]);
    // The vendor secret reaches the agent sealed to its key, never in plain text.
    expect(JSON.stringify(agent.messages)).not.toContain(BEARER);
    expect(isSealedValue(bearerSentTo(agent))).toBe(true);
    expect(openAsAgent(agent.key, String(bearerSentTo(agent)), bearerPlace())).toBe(BEARER);
    const record = await adminCall('GET', `/api/admin/agents/${agentId}`);
    expect(record).toMatchObject({ EnrolledAt: new Date(t.clock.now()).toISOString(), KeyFingerprint: fingerprint });

    await agent.disconnect();
    const restarted = fakeAgent(token, agent.key);
    await restarted.connect();
    expect(t.hub.isConnected(agentId)).toBe(true);
    expect(await auditOf(AuditActions.AgentEnrolled)).toHaveLength(1);
    expect(await auditOf(AuditActions.AgentAuthFailed)).toEqual([]);
  });

  /** The Bearer the first state sent to `agent` carried. */
  const bearerSentTo = (agent: FakeAgent): unknown =>
    (agent.states()[0]?.knocs[0]?.backend as { Bearer?: unknown } | undefined)?.Bearer;
  /** Where the backend's Bearer belongs. */
  const bearerPlace = () => ({ owner: 'backend' as const, ownerId: backendId, field: 'Bearer' });
  const storedBearer = async () => {
    const row = await t.ctx.db
      .selectFrom('backends')
      .select('config')
      .where('id', '=', backendId)
      .executeTakeFirstOrThrow();
    return String((JSON.parse(row.config) as { Bearer: unknown }).Bearer);
  };

  it('re-seals a secret stored with the server key to the agent when it registers its sealing key, and drops the server-key copy', async () => {
    // Stored before the agent ever connected: the store holds it sealed with the server key.
    const legacy = await storedBearer();
    expect(isSealedValue(legacy)).toBe(false);
    expect(t.ctx.secrets.open(legacy, { table: 'backends', column: 'config.Bearer', rowId: backendId })).toBe(BEARER);

    const agent = fakeAgent();
    await agent.connect();
    const resealed = await storedBearer();
    expect(isSealedValue(resealed)).toBe(true);
    expect(() =>
      t.ctx.secrets.open(resealed, { table: 'backends', column: 'config.Bearer', rowId: backendId }),
    ).toThrow(SecretUnreadableError);
    expect(openAsAgent(agent.key, resealed, bearerPlace())).toBe(BEARER);
    expect(() => openAsAgent(fakeAgentKey(), resealed, bearerPlace())).toThrow();
    expect(bearerSentTo(agent)).toBe(resealed);
  });

  it('sends an agent older than sealing its secrets as before, and re-seals them once it sends a sealing key', async () => {
    const old = fakeAgent(token, fakeAgentKey(), false);
    await old.connect();
    expect((await storedAgent()).sealingKey).toBeNull();
    expect(bearerSentTo(old)).toBe(BEARER);
    await old.disconnect();

    const updated = fakeAgent(token, old.key);
    await updated.connect();
    expect((await storedAgent()).sealingKey).toBe(sealingKeyOf(old.key).publicKey);
    // Newest first: the sealing key joined the key enrolled on the first connection.
    expect((await auditOf(AuditActions.AgentEnrolled)).map((entry) => entry.Description)).toEqual([
      `Sealing key ${agentKeyFingerprint(sealingKeyOf(old.key).publicKey)}`,
      `Key ${agentKeyFingerprint(old.key.publicKey)}`,
    ]);
    expect(isSealedValue(bearerSentTo(updated))).toBe(true);
    expect(JSON.stringify(updated.messages)).not.toContain(BEARER);
  });

  it('refuses a sealing key not signed by the agent key, and a changed one until the token is rotated', async () => {
    const agent = fakeAgent();
    await agent.connect();
    await agent.disconnect();

    // Signed by another key.
    const forged = fakeAgent(token, agent.key);
    const nonce = await forged.open();
    forged.hello({ proof: proveKey(agent.key, nonce), sealingKey: sealingKeyOf(fakeAgentKey()) });
    expect(await forged.whenClosed()).toMatchObject({ code: AgentCloseCodes.unauthorised });
    expect(forged.goodbyes()[0]?.reason).toBe(AgentRefusals.badSealingKey);
    expect(forged.states()).toEqual([]);

    // Another key, properly signed, while one is registered.
    const other = fakeAgentKey();
    const changed = fakeAgent(token, agent.key);
    const changedNonce = await changed.open();
    const otherSealing = sealingKeyOf(other);
    // The agent key vouching for a sealing key that is not the registered one.
    const vouched = {
      publicKey: otherSealing.publicKey,
      signature: signSealingKey(agent.key, otherSealing.publicKey),
    };
    changed.hello({ proof: proveKey(agent.key, changedNonce), sealingKey: vouched });
    expect(await changed.whenClosed()).toMatchObject({ code: AgentCloseCodes.unauthorised });
    expect(changed.goodbyes()[0]?.reason).toBe(AgentRefusals.sealingKeyMismatch);
    expect((await storedAgent()).sealingKey).toBe(sealingKeyOf(agent.key).publicKey);

    // Rotating the token drops both keys: secrets sealed to the old key can no longer be sent.
    const rotated = await adminCall('POST', `/api/admin/agents/${agentId}/token`);
    expect((await storedAgent()).sealingKey).toBeNull();
    const reinstalled = fakeAgent(rotated.Token, other);
    await reinstalled.connect();
    expect(reinstalled.states()[0]?.knocs).toEqual([]);
    expect((await storedAgent()).sealingKey).toBe(otherSealing.publicKey);
    expect(await auditOf(AuditActions.SecretUnreadable)).toEqual([
      expect.objectContaining({ ErrorMessage: expect.stringMatching(/^sealed to another agent key/) as string }),
    ]);
    expect(JSON.stringify(reinstalled.messages)).not.toContain(BEARER);
  });

  it('refuses a second connection with the spent token and another key, and the live agent keeps its connection and its applies', async () => {
    await givenLicence(t.ctx);
    const user = await givenUser(t.ctx, { userName: 'alice' });
    await t.ctx.db.insertInto('userAcls').values({ userId: user.id, aclId }).execute();
    const agent = fakeAgent();
    await agent.connect();

    const impostor = fakeAgent();
    await expect(impostor.connect()).rejects.toThrow(/connection refused/);
    expect(impostor.closed).toEqual({ code: AgentCloseCodes.unauthorised, reason: expect.any(String) as string });
    expect(impostor.goodbyes()[0]?.reason).toBe(AgentRefusals.keyMismatch);
    expectNothingButChallengeAndGoodbye(impostor);

    expect(agent.isOpen()).toBe(true);
    expect(agent.goodbyes()).toEqual([]);
    expect(t.hub.isConnected(agentId)).toBe(true);
    expect((await storedAgent()).publicKey).toBe(agent.key.publicKey);
    const cookie = await givenUserSession(t, user);
    const granted = await t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie },
      remoteAddress: '198.51.100.7',
      payload: { ACLID: aclId, IPs: [] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    await agent.waitFor(
      () => agent.applies().some((apply) => apply.add.some((entry) => entry.ip === '198.51.100.7')),
      'the grant on the live agent',
    );
    expect(impostor.applies()).toEqual([]);
    expect(await auditOf(AuditActions.AgentAuthFailed)).toEqual([
      {
        AgentName: 'edge',
        IpAddress: '127.0.0.1',
        ErrorMessage: AgentRefusals.keyMismatch,
        Description: `Presented key ${agentKeyFingerprint(impostor.key.publicKey)}`,
      },
    ]);
  });

  it('refuses a hello without a key proof, as an agent from before keys sends it, and sends it nothing', async () => {
    const old = fakeAgent();
    await old.open();
    old.hello({ proof: null });

    expect(await old.whenClosed()).toMatchObject({ code: AgentCloseCodes.unauthorised });
    expect(old.goodbyes()[0]?.reason).toBe(AgentRefusals.noProof);
    expectNothingButChallengeAndGoodbye(old);
    const row = await storedAgent();
    expect(row).toMatchObject({
      publicKey: null,
      enrolledAt: null,
      connectionId: null,
      version: null,
      capabilities: null,
    });
    expect(await auditOf(AuditActions.AgentAuthFailed)).toEqual([
      { AgentName: 'edge', IpAddress: '127.0.0.1', ErrorMessage: AgentRefusals.noProof },
    ]);
    expect(await auditOf(AuditActions.AgentConnected)).toEqual([]);
  });

  it('answers nothing but the challenge before the proof, and drops a connection whose first message is not its hello', async () => {
    const early = fakeAgent();
    await early.open();
    early.send({ type: 'heartbeat', version: 1 });

    expect(await early.whenClosed()).toMatchObject({ code: AgentCloseCodes.protocolError });
    expect(early.messages.map((message) => message.type)).toEqual(['challenge']);
    expect((await storedAgent()).lastSeen).toBeNull();
  });

  it('refuses a bad signature, a signature over another nonce, and a replayed hello, and keeps the live agent', async () => {
    const agent = fakeAgent();
    const firstNonce = await agent.open();
    const genuine = proveKey(agent.key, firstNonce);
    agent.hello({ proof: genuine });
    await agent.waitFor(() => agent.states().length === 1, 'the first state');

    const tampered = fakeAgent(token, agent.key);
    const tamperedNonce = await tampered.open();
    const signature = Buffer.from(proveKey(agent.key, tamperedNonce).signature, 'base64url');
    signature[0] = (signature[0] ?? 0) ^ 0x01;
    tampered.hello({ proof: { publicKey: agent.key.publicKey, signature: signature.toString('base64url') } });

    const otherNonce = fakeAgent(token, agent.key);
    await otherNonce.open();
    otherNonce.hello({ proof: proveKey(agent.key, `${firstNonce.slice(0, -4)}AAAA`) });

    const replay = fakeAgent(token, agent.key);
    await replay.open();
    replay.hello({ proof: genuine });

    for (const refused of [tampered, otherNonce, replay]) {
      expect(await refused.whenClosed()).toMatchObject({ code: AgentCloseCodes.unauthorised });
      expect(refused.goodbyes()[0]?.reason).toBe(AgentRefusals.badProof);
      expectNothingButChallengeAndGoodbye(refused);
    }
    expect(agent.isOpen()).toBe(true);
    expect(t.hub.isConnected(agentId)).toBe(true);
  });

  it('drops the key when the token is rotated: the old token is refused at the upgrade, a new key enrols with the new token, then the old key is refused', async () => {
    const agent = fakeAgent();
    await agent.connect();
    const oldKey = agent.key;

    const rotated = await adminCall('POST', `/api/admin/agents/${agentId}/token`);
    expect(await agent.whenClosed()).toMatchObject({ code: AgentCloseCodes.unauthorised });
    expect(rotated).toMatchObject({ EnrolledAt: null, KeyFingerprint: null });
    expect(await storedAgent()).toMatchObject({ publicKey: null, enrolledAt: null });
    const [rotation] = await auditOf(AuditActions.AgentTokenRotated);
    expect(rotation?.Description).toBe(
      `Registered key ${agentKeyFingerprint(oldKey.publicKey)} dropped; the agent enrols again`,
    );

    await expect(fakeAgent(token, oldKey).connect()).rejects.toThrow(/401/);

    const reinstalled = fakeAgent(rotated.Token);
    await reinstalled.connect();
    expect((await storedAgent()).publicKey).toBe(reinstalled.key.publicKey);

    const oldHost = fakeAgent(rotated.Token, oldKey);
    await expect(oldHost.connect()).rejects.toThrow(/connection refused/);
    expect(oldHost.goodbyes()[0]?.reason).toBe(AgentRefusals.keyMismatch);
    expect(reinstalled.isOpen()).toBe(true);
  });

  it('lets the same host enrol its kept key again with the rotated token, as a reinstall does', async () => {
    const agent = fakeAgent();
    await agent.connect();
    const rotated = await adminCall('POST', `/api/admin/agents/${agentId}/token`);
    await agent.whenClosed();

    const reinstalled = fakeAgent(rotated.Token, agent.key);
    await reinstalled.connect();
    expect((await storedAgent()).publicKey).toBe(agent.key.publicKey);
    expect(await auditOf(AuditActions.AgentEnrolled)).toHaveLength(2);
  });

  it('closes a connection still proving its key when the token is rotated, and never admits it', async () => {
    const waiting = fakeAgent();
    await waiting.open();
    await adminCall('POST', `/api/admin/agents/${agentId}/token`);
    expect(await waiting.whenClosed()).toMatchObject({ code: AgentCloseCodes.unauthorised });
    expect(waiting.goodbyes()[0]?.reason).toBe('token rotated');
    expect(waiting.states()).toEqual([]);
    expect((await storedAgent()).publicKey).toBeNull();
  });

  it('enrols exactly one of two racing first connections and refuses the other', async () => {
    const first = fakeAgent();
    const second = fakeAgent();
    const [firstNonce, secondNonce] = await Promise.all([first.open(), second.open()]);
    first.hello({ proof: proveKey(first.key, firstNonce) });
    second.hello({ proof: proveKey(second.key, secondNonce) });

    await first.waitFor(() => first.states().length + first.goodbyes().length > 0, 'an answer');
    await second.waitFor(() => second.states().length + second.goodbyes().length > 0, 'an answer');
    const admitted = [first, second].filter((agent) => agent.states().length === 1);
    const refused = [first, second].filter((agent) => agent.goodbyes().length === 1);
    expect(admitted).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.goodbyes()[0]?.reason).toBe(AgentRefusals.keyMismatch);
    expect((await storedAgent()).publicKey).toBe(admitted[0]?.key.publicKey);
    expect(await auditOf(AuditActions.AgentEnrolled)).toHaveLength(1);
  });

  it('audits refused connections at most once a minute per agent, counting the rest in the next entry', async () => {
    await fakeAgent().connect();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const impostor = fakeAgent();
      await expect(impostor.connect()).rejects.toThrow(/connection refused/);
    }
    expect(await auditOf(AuditActions.AgentAuthFailed)).toHaveLength(1);

    t.clock.advance(REFUSED_CONNECTION_AUDIT_WINDOW_MS);
    await expect(fakeAgent().connect()).rejects.toThrow(/connection refused/);
    const entries = await auditOf(AuditActions.AgentAuthFailed);
    expect(entries).toHaveLength(2);
    expect(entries[0]?.Description).toContain('2 more refused since the last entry (logged only)');
  });
});
