// The admin agent list's figures (issue: the list at thousands of agents), run by scripts/bench.mjs
// through tsx: the real HTTP app on a SQLite store from source, like the server's API tests. Prints
// one JSON line:
// - a changed list: GET /api/admin/agents with 10,000 agents, its time and size, and the longest
//   event-loop stall (perf_hooks.monitorEventLoopDelay, 1 ms resolution) while the list is built
//   (agentListJson alone) and over the whole injected request (which adds light-my-request's own
//   handling of the multi-megabyte body, a cost a real socket spreads out);
// - an unchanged list: the same GET with If-None-Match, answered 304, median time.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createTestApp } from '../../apps/server/src/test-support/test-app.js';
import { givenAdmin } from '../../apps/server/src/test-support/factories.js';
import { signInAdmin } from '../../apps/server/src/test-support/http.js';
import {
  generateAgentToken,
  agentTokenSecretContext,
  hashAgentToken,
} from '../../apps/server/src/agents/agent-token.js';
import { uuidv7 } from '../../apps/server/src/lib/ids.js';
import { agentListJson } from '../../apps/server/src/agents/agents.service.js';

const AGENTS = 10_000;
const SAMPLES = 20;

const t = await createTestApp('sqlite');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

try {
  const now = t.clock.now();
  const rows = Array.from({ length: AGENTS }, (_, index) => {
    const id = uuidv7(now + index);
    const token = generateAgentToken();
    return {
      id,
      name: `agent-${String(index).padStart(5, '0')}`,
      tokenHash: hashAgentToken(token),
      tokenSecret: t.ctx.secrets.seal(token, agentTokenSecretContext(id)),
      createdAt: now,
      updatedAt: now,
      lastModifiedBy: 'bench',
      // Half of them connected and heard from, as on a busy server.
      ...(index % 2 === 0
        ? { connectionId: `connection-${index}`, lastSeen: now, version: '1.0.0', externalIp: '203.0.113.5:40112' }
        : {}),
    };
  });
  for (let start = 0; start < rows.length; start += 500) {
    await t.ctx.db
      .insertInto('agents')
      .values(rows.slice(start, start + 500))
      .execute();
  }
  const admin = await givenAdmin(t.ctx, { userName: 'bench' });
  const cookie = await signInAdmin(t.app, 'bench', admin.password);
  const get = (etag?: string) =>
    t.app.inject({
      method: 'GET',
      url: '/api/admin/agents',
      headers: { cookie, ...(etag === undefined ? {} : { 'if-none-match': etag }) },
    });

  await get(); // warm-up: code paths compiled, statements prepared
  const listMs: number[] = [];
  let bytes = 0;
  let etag = '';
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  for (let i = 0; i < 5; i += 1) {
    const started = performance.now();
    const response = await get();
    listMs.push(performance.now() - started);
    if (response.statusCode !== 200) throw new Error(`list answered ${response.statusCode}`);
    bytes = response.rawPayload.length;
    etag = String(response.headers.etag);
  }
  delay.disable();
  const buildDelay = monitorEventLoopDelay({ resolution: 1 });
  buildDelay.enable();
  for (let i = 0; i < 5; i += 1) await agentListJson(t.ctx);
  buildDelay.disable();
  const notModifiedMs: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const started = performance.now();
    const response = await get(etag);
    notModifiedMs.push(performance.now() - started);
    if (response.statusCode !== 304) throw new Error(`an unchanged list answered ${response.statusCode}, not 304`);
  }
  console.log(
    JSON.stringify({
      agents: AGENTS,
      listMedianMs: median(listMs),
      bytes,
      longestBuildStallMs: buildDelay.max / 1e6,
      longestRequestStallMs: delay.max / 1e6,
      notModifiedMedianMs: median(notModifiedMs),
    }),
  );
} finally {
  await t.close();
}
