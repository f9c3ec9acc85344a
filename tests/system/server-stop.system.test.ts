import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { spawnPosternServer, startPosternServer, type PosternServer } from './support/postern-server.js';
import { AdminApi } from './support/admin-api.js';
import { missingBuild, requireTool } from './support/requirements.js';
import { startHostAgent, stopAgent } from './support/grant-topology.js';

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
  code?: number;
  retryInMs?: number;
  ms?: number;
}

function lines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/**
 * Issue item 7 as systemd meets it: SIGTERM to the built server while the built agent is connected
 * and requests are in flight on keep-alive connections (which once held the stop for the 72 s
 * keep-alive timeout). The server tells the agent goodbye, answers the requests, exits normally and
 * gives the store up, so the next start on the same data directory succeeds at once; the agent waits
 * for the restart before it reconnects.
 */
describe('SIGTERM to the built server with the built agent connected', () => {
  const missing = missingBuild(REPO_ROOT);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-stop-'));
  const agentDir = mkdtempSync(path.join(tmpdir(), 'postern-stop-agent-'));
  let server: PosternServer | undefined;
  let agent: RunningProcess | undefined;
  let next: RunningProcess | undefined;
  beforeEach((context) => requireTool(context, missing));
  afterAll(async () => {
    await stopAgent(agent);
    await next?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(agentDir, { recursive: true, force: true });
  });

  it('says goodbye, answers what is in flight, exits 0 and frees the store for the next start', async () => {
    server = await startPosternServer({ POSTERN_DATA_DIR: dataDir, POSTERN_LOG_LEVEL: 'info' }, 'sqlite');
    const admin = await AdminApi.signIn(server);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', { Name: 'edge' });
    agent = startHostAgent(server.url, created.Token, path.join(agentDir, 'state.json'), {
      POSTERN_AGENT_LOG_LEVEL: 'info',
    });
    await waitFor(
      async () => (await admin.call<{ Online: boolean }>('GET', `/api/admin/agents/${created.ID}`)).Online,
      'the agent to connect',
      20_000,
    );

    // Failed sign-ins (a password hash each) on keep-alive connections, in flight as the stop begins.
    const url = server.url;
    const signIns = [1, 2, 3].map((n) =>
      fetch(`${url}/api/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ UserName: `nobody-${n}`, Password: 'not the password' }),
      }).then(
        (response) => response.status,
        () => 'not connected',
      ),
    );
    const stopped = await server.process.stop();

    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toBe('');
    const serverLog = lines(stopped.stdout);
    expect(serverLog.filter((line) => line.level >= 50)).toEqual([]);
    expect(serverLog.map((line) => line.msg)).toContain('stopped');
    for (const status of await Promise.all(signIns)) expect([401, 'not connected']).toContain(status);

    // The agent heard goodbye, and waits for the restart instead of retrying at once.
    await waitFor(
      () => lines(agent?.stdout() ?? '').some((line) => line.msg === 'disconnected from the server'),
      'the agent to see the close',
    );
    const agentLog = lines(agent.stdout());
    expect(agentLog.find((line) => line.msg === 'the server said goodbye')).toMatchObject({
      reason: 'server stopping',
    });
    const disconnected = agentLog.find((line) => line.msg === 'disconnected from the server');
    expect(disconnected).toMatchObject({ code: 4004, reason: 'server stopping' });
    expect(disconnected?.retryInMs).toBeGreaterThanOrEqual(2_000);

    // The same store at once: the lock is free.
    const restarted = await spawnPosternServer(dataDir, { POSTERN_LOG_LEVEL: 'info' });
    next = restarted.process;
    await next.waitForOutput(/Postern is listening/, 30_000);
    expect((await fetch(`${restarted.url}/readyz`)).status).toBe(200);
  }, 45_000);
});
