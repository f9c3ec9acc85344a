import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT } from '@postern/test-support';
import { startPosternServer, type PosternServer, type StoreChoice } from './support/postern-server.js';
import { missingBuild, requireTool } from './support/requirements.js';

const TOKEN = 'a-metrics-token-for-the-system-test';

/**
 * Issue 17 items 3 and 4 as an operator meets them: the built server answers its health checks on
 * the API port and serves Prometheus metrics on a listener of its own, behind a bearer token.
 */
describe.each((process.env.POSTERN_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite']) as StoreChoice[])(
  'the built server’s health checks and metrics (%s)',
  (store) => {
    const missing = missingBuild(REPO_ROOT);
    let server: PosternServer | undefined;
    let metricsUrl = '';

    beforeAll(async () => {
      if (missing !== null) return;
      const port = await freePort();
      metricsUrl = `http://127.0.0.1:${port}/metrics`;
      server = await startPosternServer(
        { POSTERN_METRICS_LISTEN: `127.0.0.1:${port}`, POSTERN_METRICS_TOKEN: TOKEN },
        store,
      );
    });
    afterAll(async () => {
      await server?.stop();
    });
    beforeEach((context) => requireTool(context, missing));

    it('is live and ready', async () => {
      const live = await fetch(`${server?.url ?? ''}/healthz`);
      expect(live.status).toBe(200);
      const ready = await fetch(`${server?.url ?? ''}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ data: { Status: 'ready', Clock: 'ok' } });
    });

    it('serves metrics with the token only, and never on the API port', async () => {
      expect((await fetch(metricsUrl)).status).toBe(401);
      const scraped = await fetch(metricsUrl, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(scraped.status).toBe(200);
      const body = await scraped.text();
      expect(body).toContain('postern_process_cpu_seconds_total');
      expect(body).toContain('postern_sessions_active{role="admin"} 0');
      expect(body).toContain('# TYPE postern_grants_total counter');

      const onApiPort = await fetch(`${server?.url ?? ''}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(await onApiPort.text()).not.toContain('postern_');
    });
  },
);
