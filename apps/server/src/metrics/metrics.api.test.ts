import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '@postern/test-support';
import { type TestApp } from '../test-support/test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import type { FakeAgent } from '../test-support/fake-agent.js';
import { ALICE_ADDRESS, givenIpsetKnoc, useGrantEngineWorld } from '../test-support/grant-engine-world.js';
import { DEFAULT_USER_PASSWORD, PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';
import { signInUser } from '../test-support/http.js';
import { startMetricsListener, type MetricsListener } from './metrics-listener.js';

/** One sample of the exposition text: name, labels and value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape (the text format: `name{a="b",…} value`, comments skipped). */
function samples(body: string): Sample[] {
  return body
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key = '', value = ''] of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
        labels[key] = value;
      }
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

function valueOf(all: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  return all.find(
    (sample) =>
      sample.name === name &&
      Object.keys(labels).length === Object.keys(sample.labels).length &&
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  )?.value;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe.each(bothStores())('the metrics listener (%s)', (kind) => {
  const world = useGrantEngineWorld(kind);
  const { signIn, grant, revoke, settle } = world;
  let t: TestApp, agent: FakeAgent, agentId: string, userId: string;
  let listener: MetricsListener;
  beforeEach(async () => {
    ({ t, agent, agentId, userId } = world);
    listener = await startMetricsListener({ host: '127.0.0.1', port: 0, token: null }, t.ctx.metrics, t.ctx.logger);
  });
  afterEach(() => listener.close());

  const scrape = async () => {
    const response = await fetch(`http://127.0.0.1:${listener.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it(
    'counts a sign-in and a grant with bounded labels, and reads the gauges from the store and the hub',
    { timeout: PASSWORD_TEST_TIMEOUT_MS },
    async () => {
      const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
      await agent.connect();
      const failed = await t.app.inject({
        method: 'POST',
        url: '/api/login',
        payload: { UserName: 'alice', Password: 'not her password', KioskMode: false },
      });
      expect(failed.statusCode).toBe(401);
      // A real sign-in, since the sign-in is counted (the world's signIn writes a session).
      const alice = { cookie: await signInUser(t.app, 'alice', DEFAULT_USER_PASSWORD), address: ALICE_ADDRESS };
      expect((await grant(alice, aclId)).statusCode).toBe(200);
      expect((await grant(alice, 'no-such-knoc')).statusCode).toBe(404);
      await settle();

      const body = await scrape();
      const during = samples(body);
      expect(valueOf(during, 'postern_auth_attempts_total', { method: 'local', result: 'success' })).toBe(1);
      expect(valueOf(during, 'postern_auth_attempts_total', { method: 'local', result: 'failure' })).toBe(1);
      expect(valueOf(during, 'postern_grants_total', { result: 'applied', backend_type: 'ipset' })).toBe(1);
      expect(valueOf(during, 'postern_grants_total', { result: 'denied', backend_type: 'unknown' })).toBe(1);
      expect(valueOf(during, 'postern_grant_apply_duration_seconds_count', { backend_type: 'ipset' })).toBe(1);
      expect(valueOf(during, 'postern_active_grants', { backend_type: 'ipset' })).toBe(1);
      expect(valueOf(during, 'postern_sessions_active', { role: 'user' })).toBe(1);
      expect(valueOf(during, 'postern_sessions_active', { role: 'admin' })).toBe(0);
      expect(valueOf(during, 'postern_agents_connected')).toBe(1);
      expect(valueOf(during, 'postern_agent_heartbeat_age_seconds', { agent: 'edge' })).toBeGreaterThanOrEqual(0);
      expect(valueOf(during, 'postern_change_bus_notifications_total')).toBe(0);
      // Never a user, address, session or grant id (or any id) in a label.
      for (const sample of during) {
        for (const value of Object.values(sample.labels)) {
          expect(value).not.toMatch(UUID);
          expect(value).not.toContain(ALICE_ADDRESS);
          expect(value).not.toBe('alice');
        }
      }
      expect(body).not.toContain(aclId);
      expect(body).not.toContain(agentId);

      expect((await revoke(alice, aclId)).statusCode).toBe(200);
      await settle();
      const after = samples(await scrape());
      expect(valueOf(after, 'postern_revokes_total', { reason: 'revoked', backend_type: 'ipset' })).toBe(1);
      expect(valueOf(after, 'postern_active_grants', { backend_type: 'ipset' })).toBeUndefined();
      // A repeated confirmation is not a second grant.
      expect(valueOf(after, 'postern_grants_total', { result: 'applied', backend_type: 'ipset' })).toBe(1);

      await agent.disconnect();
      await waitFor(
        async () => valueOf(samples(await scrape()), 'postern_agents_connected') === 0,
        'the agent to be gone from the gauge',
      );
      expect(samples(await scrape()).some((sample) => sample.name === 'postern_agent_heartbeat_age_seconds')).toBe(
        false,
      );
    },
  );

  it('counts an entry the device refused as an error', async () => {
    const aclId = await givenIpsetKnoc(t.ctx, agentId, userId);
    agent.decide = (entry) => ({ ...entry, ok: false, error: 'ipset: set does not exist' });
    await agent.connect();
    const alice = await signIn();
    expect((await grant(alice, aclId)).statusCode).toBe(200);
    await settle();
    const all = samples(await scrape());
    expect(valueOf(all, 'postern_grants_total', { result: 'error', backend_type: 'ipset' })).toBe(1);
    expect(valueOf(all, 'postern_grants_total', { result: 'applied', backend_type: 'ipset' })).toBeUndefined();
  });

  it('is not served on the API port', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.body).not.toContain('postern_');
  });
});
