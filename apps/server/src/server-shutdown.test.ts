import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import WebSocket from 'ws';
import { AGENT_CONNECT_PATH, AgentCloseCodes, AuditActions } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import type { PosternConfig } from './config/config.js';
import { contextWithoutAgents, openPreparedStore, startServer } from './server.js';
import { givenAgent } from './test-support/agent-factories.js';
import { givenAdmin } from './test-support/factories.js';
import { FakeAgent } from './test-support/fake-agent.js';
import { signInAdmin } from './test-support/http.js';
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
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function config(): Promise<PosternConfig> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-shutdown-'));
    dirs.push(dataDir);
    return {
      host: '127.0.0.1',
      port: await freePort(),
      listenBacklog: 511,
      dataDir,
      store: { kind: 'sqlite', file: path.join(dataDir, 'postern.db') },
      trustedProxies: [],
      publicUrl: null,
      secretKey: Buffer.alloc(32, 7),
      insecureHttp: true,
      logLevel: 'info',
      webDir: path.join(dataDir, 'no-web-app'),
      licencePublicKeys: [],
      ipDiscoveryPorts: [await freePort()],
      supportUrl: null,
      licensingUrl: null,
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
    const cookie = await signInAdmin(server.app, 'ops', admin.password);

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
