import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import WebSocket from 'ws';
import { AGENT_CONNECT_PATH, AGENT_PROTOCOL_VERSION, AgentCloseCodes, AuditActions } from '@postern/protocol';
import { freePort, waitFor } from '@postern/test-support';
import type { PosternConfig } from './config/config.js';
import { contextWithoutAgents, openPreparedStore, startServer } from './server.js';
import { givenAgent } from './test-support/agent-factories.js';
import { givenAdmin, givenUser } from './test-support/factories.js';
import { givenIpsetKnoc } from './test-support/grant-engine-world.js';
import { givenLicence, TEST_LICENCE_KEYS } from './test-support/licence.js';
import { createTestStore, type TestStore, type TestStoreKind } from './test-support/test-app.js';
import { bothStores } from './test-support/store-kinds.js';
import { takeProcessLock } from './store/single-process-lock.js';
import { FakeAgent } from './test-support/fake-agent.js';
import { givenAdminSession, givenUserSession } from './test-support/sessions.js';
import { recentAudit } from './audit/audit.js';

interface LogLine {
  level: number;
  msg?: string;
  err?: { message?: string };
}

const WARN = 40;

/**
 * The whole server as `postern serve` runs it (startServer), stopped while work is in flight:
 * connected agents, requests, a settings change that reapplies the runtime settings. Nothing may
 * touch the store after it has closed; such a read or write would log a warning or error.
 */
describe('server shutdown', { timeout: 30_000 }, () => {
  const dirs: string[] = [];
  const schemas: TestStore[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    for (const schema of schemas.splice(0)) await schema.dispose();
  });

  /** An empty schema on the test PostgreSQL, named by the URL's search path as an operator would. */
  async function postgresSchema(): Promise<PosternConfig['store']> {
    const created = await createTestStore('postgres', { migrate: false });
    schemas.push(created);
    const url = new URL(created.location.kind === 'postgres' ? created.location.url : '');
    url.searchParams.set('options', `-c search_path=${created.postgresSchema ?? ''}`);
    return { kind: 'postgres', url: url.toString() };
  }

  /** A fresh data directory, and a fresh store in it (SQLite) or in a schema of its own (PostgreSQL). */
  async function config(kind: TestStoreKind = 'sqlite'): Promise<PosternConfig> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-shutdown-'));
    dirs.push(dataDir);
    return {
      host: '127.0.0.1',
      port: await freePort(),
      listenBacklog: 511,
      dataDir,
      store: kind === 'sqlite' ? { kind: 'sqlite', file: path.join(dataDir, 'postern.db') } : await postgresSchema(),
      trustedProxies: [],
      publicUrl: null,
      secretKey: Buffer.alloc(32, 7),
      insecureHttp: true,
      logLevel: 'info',
      webDir: path.join(dataDir, 'no-web-app'),
      licencePublicKeys: [],
      ipDiscoveryPorts: [await freePort()],
      supportUrl: null,
      supportEmail: null,
      licensingUrl: null,
      releaseFeed: null,
      experimentalFeatures: [],
      // Port 0: the system picks one; the shutdown closes this listener too.
      metrics: { host: '127.0.0.1', port: 0, token: null },
    };
  }

  it('closes the store last: agents, requests and background jobs finish first, and nothing complains', async () => {
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
    const settings = await config();
    const server = await startServer(settings, logger);
    const ctx = await contextWithoutAgents(settings, server.store, logger);

    const agents: FakeAgent[] = [];
    for (let i = 0; i < 3; i += 1) {
      const agent = new FakeAgent(server.url, (await givenAgent(ctx, { name: `edge-${i}` })).token);
      await agent.connect();
      agents.push(agent);
    }
    const admin = await givenAdmin(ctx, { userName: 'ops' });
    // The session a sign-in makes, without one more password hash: the stop, not the sign-in, is the subject.
    const cookie = await givenAdminSession({ ctx }, admin);

    // Work in flight when the stop begins: a settings change (which reapplies the runtime settings),
    // a failed sign-in (hashing, then a throttle write and an audit entry) and reads.
    const settingsChange = fetch(`${server.url}/api/admin/settings/config`, {
      method: 'PUT',
      headers: { cookie, origin: server.url, 'content-type': 'application/json' },
      body: JSON.stringify({
        DiscoverIP: false,
        DiscoverIPURL: '',
        DebugMode: false,
        GELFListenerURL: '',
        KioskSessionDuration: 15,
      }),
    });
    const requests = [
      settingsChange,
      fetch(`${server.url}/api/admin/login`, {
        method: 'POST',
        headers: { origin: server.url, 'content-type': 'application/json' },
        body: JSON.stringify({ UserName: 'ops', Password: 'not the password' }),
      }),
      ...Array.from({ length: 5 }, () => fetch(`${server.url}/api/status`)),
    ].map((request) => request.then((response) => response.status).catch(() => 'not connected'));
    const stopping = lines.length;
    await server.stop();
    const statuses = await Promise.all(requests);

    const afterStop = lines.slice(stopping).filter((line) => line.level >= WARN);
    expect(afterStop.map((line) => `${line.msg ?? ''}: ${line.err?.message ?? ''}`)).toEqual([]);
    expect(statuses).not.toContain(500);
    for (const agent of agents) {
      expect(await agent.whenClosed()).toEqual({ code: AgentCloseCodes.serverStopping, reason: 'server stopping' });
    }

    // Every disconnect was recorded before the store closed.
    const store = await openPreparedStore(settings, pino({ level: 'silent' }));
    try {
      const connected = await store.db.selectFrom('agents').select('connectionId').execute();
      expect(connected.map((row) => row.connectionId)).toEqual([null, null, null]);
      const audit = await recentAudit(store.db, 100);
      expect(audit.filter((entry) => AuditActions.AgentDisconnected in entry.Entry)).toHaveLength(3);
    } finally {
      await store.close();
    }
  });

  it.each(bothStores())(
    'stops with 100 agents and grants in flight: agents told goodbye, requests answered, lease and store lock given up, the next start succeeds (%s)',
    async (kind) => {
      const lines: LogLine[] = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
      // Loopback is never granted: the grants come "through a proxy" from documentation addresses.
      const settings = {
        ...(await config(kind)),
        trustedProxies: ['127.0.0.1'],
        licencePublicKeys: TEST_LICENCE_KEYS,
      };
      const server = await startServer(settings, logger);
      const ctx = await contextWithoutAgents(settings, server.store, logger);
      await givenLicence(ctx);

      const agents: FakeAgent[] = [];
      const agentIds: string[] = [];
      for (let i = 0; i < 100; i += 1) {
        const given = await givenAgent(ctx, { name: `edge-${i}` });
        agentIds.push(given.id);
        agents.push(new FakeAgent(server.url, given.token));
      }
      await Promise.all(agents.map((agent) => agent.connect()));
      const users = await Promise.all(Array.from({ length: 5 }, (_, i) => givenUser(ctx, { userName: `user-${i}` })));
      const knocs = await Promise.all(users.map((user, i) => givenIpsetKnoc(ctx, agentIds[i] ?? '', user.id)));
      const cookies = await Promise.all(users.map((user) => givenUserSession({ ctx }, user)));
      const lease = await server.store.db.selectFrom('leases').select(['name', 'holder']).execute();
      expect(lease).toEqual([{ name: 'sweepers', holder: server.store.replicaId }]);

      // Over real keep-alive connections, as browsers send them: the stop must not wait for them to idle
      // out. Sign-ins that fail (a password hash each) are still running when the listener closes.
      let arrived = 0;
      server.app.server.on('request', () => (arrived += 1));
      const signIns = Array.from({ length: 3 }, () =>
        fetch(`${server.url}/api/login`, {
          method: 'POST',
          headers: { origin: server.url, 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.9' },
          body: JSON.stringify({ UserName: 'user-0', Password: 'not the password' }),
        }).then((response) => response.status),
      );
      const grants = users.map((_user, i) =>
        fetch(`${server.url}/api/grant`, {
          method: 'POST',
          headers: {
            cookie: cookies[i] ?? '',
            origin: server.url,
            'content-type': 'application/json',
            'x-forwarded-for': `192.0.2.${i + 1}`,
          },
          body: JSON.stringify({ ACLID: knocs[i], IPs: [] }),
        }).then((response) => ({ status: response.status })),
      );
      await waitFor(() => arrived === users.length + signIns.length, 'the requests to reach the server');
      const stopping = lines.length;
      await server.stop();
      const answers = await Promise.all(grants);
      expect(await Promise.all(signIns)).toEqual([401, 401, 401]);

      // Requests that had reached the server finish: granted, and the answer is not cut off.
      expect(answers.map((answer) => answer.status)).toEqual(users.map(() => 200));
      for (const agent of agents) {
        expect(agent.messages.filter((message) => message.type === 'goodbye')).toEqual([
          { type: 'goodbye', version: AGENT_PROTOCOL_VERSION, reason: 'server stopping' },
        ]);
        expect(await agent.whenClosed()).toEqual({ code: AgentCloseCodes.serverStopping, reason: 'server stopping' });
      }

      // The data directory's lock is free, and the lease given up rather than left to expire.
      takeProcessLock(settings.dataDir, 'serve').release();
      const store = await openPreparedStore(settings, pino({ level: 'silent' }));
      try {
        expect(await store.db.selectFrom('leases').selectAll().execute()).toEqual([]);
        const connected = await store.db.selectFrom('agents').select('connectionId').execute();
        expect(connected.filter((row) => row.connectionId !== null)).toEqual([]);
        const granted = await store.db.selectFrom('grants').select('userId').execute();
        expect(granted.map((grant) => grant.userId).sort()).toEqual(users.map((user) => user.id).sort());
      } finally {
        await store.close();
      }
      // The next start on the same store succeeds at once.
      const next = await startServer(settings, pino({ level: 'silent' }));
      await next.stop();
      expect(lines.slice(stopping).filter((line) => line.level >= WARN)).toEqual([]);
    },
  );

  it('starts and stops without waiting for a release feed host that never answers', async () => {
    // The host takes the request and never answers: the feed's own timeout is 10 s.
    const held: http.IncomingMessage[] = [];
    const silent = http.createServer((request) => held.push(request));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const settings = await config();
      const server = await startServer(
        { ...settings, releaseFeed: { kind: 'url', url: `http://127.0.0.1:${port}/feed.json` } },
        pino({ level: 'silent' }),
      );
      // Started and answering while the feed's request is still unanswered.
      await waitFor(() => held.length === 1, 'the feed request');
      expect(held[0]?.socket.destroyed).toBe(false);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const ended = new Promise<void>((resolve) => held[0]?.socket.once('close', () => resolve()));
      await server.stop();
      // The stop ended that request rather than waiting it out.
      await ended;
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('turns away an agent that connects while the server stops', async () => {
    const lines: LogLine[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
    const settings = await config();
    const server = await startServer(settings, logger);
    const ctx = await contextWithoutAgents(settings, server.store, logger);
    const early = new FakeAgent(server.url, (await givenAgent(ctx, { name: 'early' })).token);
    await early.connect();
    const lateToken = (await givenAgent(ctx, { name: 'late' })).token;
    const stopping = lines.length;
    const stopped = server.stop();
    // Once the early agent is told, the hub is closing; the HTTP listener may still be open.
    await early.whenClosed();
    const late = await new Promise<number | 'not connected'>((resolve) => {
      const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}${AGENT_CONNECT_PATH}`, {
        headers: { authorization: `Bearer ${lateToken}` },
      });
      socket.on('close', (code) => resolve(code));
      socket.on('error', () => resolve('not connected'));
    });
    await stopped;
    expect([AgentCloseCodes.serverStopping, 'not connected']).toContain(late);
    expect(lines.slice(stopping).filter((line) => line.level >= WARN)).toEqual([]);
    expect(lines.some((line) => line.msg === 'agent connected' && JSON.stringify(line).includes('late'))).toBe(false);
  });
});
