import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../../test/support/loopback-server.js';
import { memoryLogger } from '../../test/support/memory-logger.js';
import { HttpClient } from '../drivers/http/http-client.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { runtimeHarness } from '../test-support/runtime-harness.js';
import { agentMetrics } from './agent-metrics.js';
import { startAgentMetricsListener, type AgentMetricsListener } from './metrics-listener.js';

const setup = runtimeHarness();
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function listen(): Promise<AgentMetricsListener> {
  const listener = await startAgentMetricsListener({ host: '127.0.0.1', port: 0 }, agentMetrics, memoryLogger().logger);
  closers.push(() => listener.close());
  return listener;
}

/** The value of one sample line (`name{labels} value`), or 0 when the scrape has none yet. */
function sample(body: string, series: string): number {
  const line = body.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function scrape(listener: AgentMetricsListener): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

describe('agent metrics', () => {
  it('reports the connection, and the entries it applied and removed by backend type and result', async () => {
    const listener = await listen();
    const t = await setup();
    t.driver.fail = (action, ip) => (action === 'apply' && ip === '10.0.0.3' ? 'set is full' : null);
    const runtime = await t.start();
    agentMetrics.watchConnection(() => runtime.isConnected());
    const before = await scrape(listener);
    await t.server.waitForConnections(1);
    await runtime.whenConnected();

    t.server.sendState(3, [testKnoc('acl-a')], [testEntry('acl-a', '10.0.0.1'), testEntry('acl-a', '10.0.0.2')]);
    await t.server.result(3);
    t.server.sendApply(4, [testEntry('acl-a', '10.0.0.3')], [{ aclId: 'acl-a', ip: '10.0.0.1' }]);
    await t.server.result(4);

    const after = await scrape(listener);
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(sample(after, 'postern_agent_connected')).toBe(1);
    expect(delta('postern_agent_grants_applied_total{backend_type="ipset",result="ok"}')).toBe(2);
    expect(delta('postern_agent_grants_applied_total{backend_type="ipset",result="error"}')).toBe(1);
    expect(delta('postern_agent_grants_removed_total{backend_type="ipset",result="ok"}')).toBe(1);
    // No address or knoc id is ever a label.
    expect(after).not.toContain('10.0.0.');
    expect(after).not.toContain('acl-a');

    await t.server.stop();
    await waitFor(async () => sample(await scrape(listener), 'postern_agent_connected') === 0, 'the agent to notice');
  });

  it('counts vendor API calls by vendor and outcome', async () => {
    const listener = await listen();
    const server: LoopbackServer = await startLoopbackServer((req, res) => {
      if (req.method === 'POST') sendJson(res, 409, { error: 'exists' });
      else if (req.method === 'DELETE') sendJson(res, 404, { error: 'gone' });
      else sendJson(res, 200, {});
    });
    closers.push(() => server.close());
    const client = new HttpClient({ name: 'fortios', baseUrl: server.url, logger: memoryLogger().logger });
    closers.push(() => client.close());
    const before = await scrape(listener);

    await client.request({ method: 'GET', path: '/a' });
    await client.request({ method: 'POST', path: '/a', body: {} });
    await client.request({ method: 'DELETE', path: '/a' });

    const after = await scrape(listener);
    const delta = (outcome: string) =>
      sample(after, `postern_agent_vendor_api_requests_total{vendor="fortios",outcome="${outcome}"}`) -
      sample(before, `postern_agent_vendor_api_requests_total{vendor="fortios",outcome="${outcome}"}`);
    expect(delta('ok')).toBe(1);
    expect(delta('duplicate')).toBe(1);
    expect(delta('absent')).toBe(1);
  });

  it('serves only GET /metrics', async () => {
    const listener = await listen();
    expect((await fetch(`http://127.0.0.1:${listener.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${listener.port}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
