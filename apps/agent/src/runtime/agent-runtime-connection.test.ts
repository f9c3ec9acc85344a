import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_PROTOCOL_VERSION, AgentCloseCodes, POSTERN_VERSION, type HelloMessage } from '@postern/protocol';
import { sealToAgent } from '@postern/protocol/sealing';
import { selfSignedCertificate, waitFor } from '@postern/test-support';
import { VALID_TOKEN } from '../test-support/config-fixture.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { CAPABILITIES, runtimeHarness, storedEntry, writeState } from '../test-support/runtime-harness.js';
import { KEY_REFUSED_MESSAGE, NO_CHALLENGE_MESSAGE } from './server-connection.js';

const A = testKnoc('acl-a');

const setup = runtimeHarness();

describe('agent runtime: connection', () => {
  // The cases marked concurrent spend their time waiting out back-offs and heartbeat intervals on
  // real timers and sockets, each against its own fake server: they wait side by side.
  it('connects with the token and a User-Agent, and says hello with its version, capabilities, generation and entries', async () => {
    const t = await setup();
    t.fixture.mkdir('state');
    const clock = new ManualClock();
    const entries = [storedEntry('acl-a', '10.0.0.1', clock.wallMs() + 120_000, 9)];
    writeState(t.config.stateFile, { generation: 9, stateGeneration: 8, knocs: [A], entries });

    await t.start({ clock });
    const connection = await t.server.waitForConnections(1);

    expect(connection.headers.authorization).toBe(`Bearer ${VALID_TOKEN}`);
    expect(connection.headers['user-agent']).toBe(`postern-agent/${POSTERN_VERSION}`);
    expect(connection.messages[0]).toEqual({
      type: 'hello',
      version: AGENT_PROTOCOL_VERSION,
      agentVersion: POSTERN_VERSION,
      capabilities: CAPABILITIES,
      generation: 9,
      applied: [{ aclId: 'acl-a', ip: '10.0.0.1', userName: 'alice', ttlSeconds: 120 }],
      proof: { publicKey: expect.any(String) as string, signature: expect.any(String) as string },
      sealingKey: { publicKey: expect.any(String) as string, signature: expect.any(String) as string },
      wallClockMs: clock.wallMs(),
    });
    // Signed over this connection's challenge: the agent waited for it before saying hello.
    expect(connection.proofValid).toBe(true);
  });

  it('keeps secrets sealed to its key sealed (state file included) and opens them only for the driver', async () => {
    const t = await setup();
    const runtime = await t.start();
    const connection = await t.server.waitForConnections(1);
    const hello = connection.messages[0] as HelloMessage;
    const sealingKey = hello.sealingKey?.publicKey ?? '';
    const sealed = sealToAgent(sealingKey, 'device-password', {
      owner: 'backend',
      ownerId: 'backend-acl-s',
      field: 'Password',
    });
    const knoc = testKnoc('acl-s', { backend: { Password: sealed } });
    t.server.sendState(3, [knoc], [testEntry('acl-s', '10.0.0.7')]);
    expect((await t.server.result(3)).results).toEqual([
      { aclId: 'acl-s', ip: '10.0.0.7', action: 'add', ok: true, error: '' },
    ]);
    expect(t.driver.calls.find((call) => call.action === 'apply')?.knoc.backend).toEqual({
      Password: 'device-password',
    });
    await runtime.stop();
    const stateFile = readFileSync(t.config.stateFile, 'utf8');
    expect(stateFile).toContain(sealed);
    expect(stateFile).not.toContain('device-password');
  });

  it('answers a state and an apply with one result each, at their generations', async () => {
    const t = await setup();
    t.driver.fail = (action, ip) => (action === 'apply' && ip === '10.0.0.3' ? 'set is full' : null);
    await t.start();
    await t.server.waitForConnections(1);

    t.server.sendState(3, [A], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);
    const stateResult = await t.server.result(3);
    t.server.sendApply(4, [testEntry('acl-a', '10.0.0.3')], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    const applyResult = await t.server.result(4);

    expect(stateResult.results).toEqual([
      { aclId: 'acl-a', ip: '10.0.0.1', action: 'add', ok: true, error: '' },
      { aclId: 'acl-a', ip: '10.0.0.2', action: 'add', ok: true, error: '' },
    ]);
    expect(applyResult.results).toEqual([
      { aclId: 'acl-a', ip: '10.0.0.1', action: 'remove', ok: true, error: '' },
      { aclId: 'acl-a', ip: '10.0.0.3', action: 'add', ok: false, error: 'set is full' },
    ]);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.2']);
    expect(t.server.results()).toHaveLength(2);
    expect(t.server.invalidMessages).toEqual([]);
  });

  it('logs and ignores an invalid message, and keeps working', async () => {
    const t = await setup();
    const runtime = await t.start();
    await t.server.waitForConnections(1);

    t.server.send({ type: 'state', version: AGENT_PROTOCOL_VERSION, generation: 'two', knocs: [], entries: [] });
    t.server.send({ type: 'launch-missiles', version: AGENT_PROTOCOL_VERSION });
    t.server.latest.socket.send('not json');
    t.server.sendState(2, [A], [testEntry('acl-a', '10.0.0.1')]);
    await t.server.result(2);

    const invalid = t.log.find('ignoring an invalid message');
    expect(invalid.map((line) => line.problem)).toEqual([
      'does not match the protocol',
      'does not match the protocol',
      'not JSON',
    ]);
    expect(invalid[0]).toMatchObject({ type: 'state', issues: [{ path: 'generation', code: 'invalid_type' }] });
    expect(runtime.isConnected()).toBe(true);
    expect(t.server.connections).toHaveLength(1);
  });

  it.concurrent(
    'reconnects with back-off after the server closes the connection, and says hello again',
    async ({ expect, onTestFinished }) => {
      const t = await setup({}, { onTestFinished });
      const runtime = await t.start();
      await t.server.waitForConnections(1);
      t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1', 300)]);
      await t.server.result(1);

      t.server.closeAll(AgentCloseCodes.serverStopping, 'restarting');
      const second = await t.server.waitForConnections(2);

      expect(second.messages[0]).toMatchObject({
        type: 'hello',
        generation: 1,
        applied: [{ aclId: 'acl-a', ip: '10.0.0.1', ttlSeconds: 300 }],
      });
      await runtime.whenConnected();
      expect(t.log.find('disconnected from the server')[0]).toMatchObject({
        code: AgentCloseCodes.serverStopping,
        reason: 'restarting',
      });
    },
  );

  it.concurrent(
    'waits for the restart before reconnecting after the server says it is stopping (goodbye, 4004)',
    async ({ expect, onTestFinished }) => {
      const t = await setup({}, { onTestFinished });
      await t.start({ reconnect: { baseMs: 100, capMs: 60_000, random: () => 0 } });
      await t.server.waitForConnections(1);
      t.server.sendState(1, [A], []);
      await t.server.result(1);

      t.server.send({ type: 'goodbye', version: AGENT_PROTOCOL_VERSION, reason: 'server stopping' });
      t.server.closeAll(AgentCloseCodes.serverStopping, 'server stopping');
      const closedAt = Date.now();
      await t.server.waitForConnections(2);

      // Four times the base at least, where any other close may retry at once (full jitter from 0).
      expect((t.server.attempts[1] ?? 0) - closedAt).toBeGreaterThanOrEqual(400);
      expect(t.log.find('disconnected from the server')[0]).toMatchObject({ code: 4004, retryInMs: 400 });
    },
  );

  it.concurrent('keeps a connection on which the server answers heartbeats', async ({ expect, onTestFinished }) => {
    const t = await setup({}, { onTestFinished });
    await t.start({ heartbeatSeconds: 0.2 });
    const connection = await t.server.waitForConnections(1);

    await waitFor(
      () => connection.messages.filter((message) => message.type === 'heartbeat').length >= 5,
      'five heartbeats',
    );

    expect(t.server.connections).toHaveLength(1);
  });

  it.concurrent(
    'drops a connection on which the server stays silent for three heartbeat intervals, and reconnects',
    async ({ expect, onTestFinished }) => {
      const t = await setup({}, { onTestFinished });
      t.server.ackHeartbeats = false;
      await t.start({ heartbeatSeconds: 0.05 });
      const first = await t.server.waitForConnections(1);

      await t.server.waitForConnections(2);

      expect(first.messages.filter((message) => message.type === 'heartbeat').length).toBeGreaterThanOrEqual(2);
      expect(first.closeCode).toBe(1006);
      expect(t.log.find('the server stopped answering')).not.toHaveLength(0);
    },
  );

  it.concurrent(
    'waits near the cap before retrying after the server refuses the token (close code 4001)',
    async ({ expect, onTestFinished }) => {
      const t = await setup({}, { onTestFinished });
      await t.start({ reconnect: { baseMs: 5, capMs: 800, random: () => 0.999 } });
      await t.server.waitForConnections(1);
      t.server.sendState(1, [A], []);
      await t.server.result(1);

      t.server.closeAll(AgentCloseCodes.unauthorised, 'token rotated');
      const closedAt = Date.now();
      await t.server.waitForConnections(2);

      expect((t.server.attempts[1] ?? 0) - closedAt).toBeGreaterThanOrEqual(400);
      expect(t.log.find('refused the agent token')[0]).toMatchObject({ code: 4001 });
    },
  );

  it.concurrent(
    'says the key was refused, and waits near the cap, when the server refuses the proof (4001 before any state)',
    async ({ expect, onTestFinished }) => {
      const t = await setup({}, { onTestFinished });
      await t.start({ reconnect: { baseMs: 5, capMs: 800, random: () => 0.999 } });
      await t.server.waitForConnections(1);

      t.server.closeAll(AgentCloseCodes.unauthorised, "this agent's key is not the one registered for its token");
      const closedAt = Date.now();
      await t.server.waitForConnections(2);

      expect((t.server.attempts[1] ?? 0) - closedAt).toBeGreaterThanOrEqual(400);
      expect(t.log.find(KEY_REFUSED_MESSAGE)).toEqual([
        expect.objectContaining({ code: 4001, reason: "this agent's key is not the one registered for its token" }),
      ]);
      expect(t.log.find('refused the agent token')).toEqual([]);
    },
  );

  it.concurrent('treats an upgrade refused with HTTP 401 like close code 4001', async ({ expect, onTestFinished }) => {
    const t = await setup({}, { onTestFinished });
    t.server.refuseWith = 401;
    await t.start({ reconnect: { baseMs: 5, capMs: 600, random: () => 0.999 } });

    await waitFor(() => t.server.attempts.length >= 2, 'a second attempt');

    const [first = 0, second = 0] = t.server.attempts;
    expect(second - first).toBeGreaterThanOrEqual(300);
    expect(t.log.find('refused the agent token')[0]).toMatchObject({ httpStatus: 401 });
  });

  it('logs the reason of a goodbye', async () => {
    const t = await setup();
    await t.start();
    await t.server.waitForConnections(1);

    t.server.send({ type: 'goodbye', version: AGENT_PROTOCOL_VERSION, reason: 'agent deleted' });

    await waitFor(() => t.log.find('said goodbye').length > 0, 'the goodbye log line');
    expect(t.log.find('said goodbye')[0]).toMatchObject({ reason: 'agent deleted' });
  });
});

describe('agent runtime: TLS', () => {
  let dir: string;
  let tls: { key: string; cert: string; certFile: string };
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-tls-'));
    const certificate = selfSignedCertificate();
    const certFile = path.join(dir, 'cert.pem');
    writeFileSync(certFile, certificate.cert);
    tls = { ...certificate, certFile };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('trusts the server certificate given in caFile', async () => {
    const t = await setup({ tls, env: { POSTERN_AGENT_CA_FILE: tls.certFile } });
    await t.start();

    const connection = await t.server.waitForConnections(1);

    expect(t.server.serverUrl).toMatch(/^https:/);
    expect(connection.messages[0]?.type).toBe('hello');
  });

  it('refuses a server certificate it does not trust, and keeps retrying', async () => {
    const t = await setup({ tls });
    await t.start();

    await waitFor(() => t.log.find('cannot connect to the server').length >= 2, 'two failed attempts');

    expect(t.server.connections).toEqual([]);
    expect(t.log.find('connection error')[0]?.error).toMatch(/self-signed certificate/);
  });

  it('accepts any certificate with insecureSkipVerify', async () => {
    const t = await setup({ tls, env: { POSTERN_AGENT_INSECURE_SKIP_VERIFY: 'true' } });
    await t.start();

    await t.server.waitForConnections(1);
  });
});

describe('agent runtime: key', () => {
  const helloOf = (messages: readonly { type: string }[]) =>
    messages.find((message) => message.type === 'hello') as HelloMessage;

  it('creates its key file with mode 600 beside the state file on the first start, and proves that key', async () => {
    const t = await setup();
    expect(existsSync(t.config.keyFile)).toBe(false);
    await t.start();
    const connection = await t.server.waitForConnections(1);

    expect(t.config.keyFile).toBe(path.join(path.dirname(t.config.stateFile), 'agent-key.pem'));
    expect(statSync(t.config.keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(t.config.keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(connection.proofValid).toBe(true);
    expect(t.log.find('created the agent key')).toHaveLength(1);
    expect(t.log.text()).not.toContain(readFileSync(t.config.keyFile, 'utf8').split('\n')[1]);
  });

  it('proves the same key after a restart, and on every reconnect', async () => {
    const t = await setup();
    const first = await t.start();
    const firstConnection = await t.server.waitForConnections(1);
    const keyFileBefore = readFileSync(t.config.keyFile, 'utf8');
    t.server.closeAll(1012);
    const reconnected = await t.server.waitForConnections(2);
    await first.stop();

    await t.start();
    const restarted = await t.server.waitForConnections(3);

    const keys = [firstConnection, reconnected, restarted].map(
      (connection) => helloOf(connection.messages).proof?.publicKey,
    );
    expect(new Set(keys).size).toBe(1);
    expect([firstConnection, reconnected, restarted].map((connection) => connection.proofValid)).toEqual([
      true,
      true,
      true,
    ]);
    expect(readFileSync(t.config.keyFile, 'utf8')).toBe(keyFileBefore);
    expect(t.log.find('loaded the agent key')).toHaveLength(1);
  });

  it('sends nothing until the challenge arrives, then a hello signed over it', async () => {
    const t = await setup();
    t.server.sendChallenge = false;
    await t.start();
    await waitFor(() => t.server.connections.length === 1, 'the connection');
    const connection = t.server.latest;
    connection.nonce = 'n'.repeat(43);
    t.server.send({ type: 'challenge', version: AGENT_PROTOCOL_VERSION, nonce: connection.nonce });
    await t.server.waitForConnections(1);

    // A hello sent before this challenge could not have been signed over it.
    expect(connection.messages[0]?.type).toBe('hello');
    expect(connection.proofValid).toBe(true);
  });

  it('says the server may be older when it closes the connection without a challenge', async () => {
    const t = await setup();
    t.server.sendChallenge = false;
    await t.start();
    await waitFor(() => t.server.connections.length === 1, 'the connection');

    // What a server from before keys does to an agent that never says hello.
    t.server.closeAll(AgentCloseCodes.protocolError, 'no hello');

    await waitFor(() => t.log.find(NO_CHALLENGE_MESSAGE).length > 0, 'the log line');
    expect(t.log.find(NO_CHALLENGE_MESSAGE)[0]).toMatchObject({ code: AgentCloseCodes.protocolError });
    expect(t.server.connections[0]?.messages).toEqual([]);
  });

  it('refuses to start, naming the key file, when the key file holds no key', async () => {
    const t = await setup();
    t.fixture.write('state/agent-key.pem', 'not a key\n');

    await expect(t.start()).rejects.toThrow(/agent-key\.pem holds no Ed25519 private key in PEM/);
    expect(t.server.connections).toEqual([]);
  });
});
