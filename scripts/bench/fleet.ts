// "Many agents" (issue 17 item 9): the built server with a fleet of protocol-level stand-in agents
// (FakeAgent, test code, hence run from source through tsx by scripts/bench.mjs). Fleet size from
// POSTERN_BENCH_FLEET (default 10,000). Prints progress on stderr and one JSON line of rows on stdout:
// - agents made: a sample through the admin API (its rate), the rest copied in the store;
// - connect: all agents open their connection at once, as a fleet's agents do when they start
//   together (postern-agent connects at once on start; only its reconnects wait a jittered back-off);
//   done when every one has proved its key, said hello and received its first state;
// - server memory (VmRSS) before and with the fleet connected, and its CPU while the fleet heartbeats;
// - grant → apply: a user's POST /api/grant until the agent behind the knoc receives its apply;
// - GET /api/admin/agents with the fleet: time, bytes, and a revalidation when the server sends an ETag;
// - a reconnect storm: every socket cut at once, then all reconnect at once, then again with each
//   agent first waiting a random 0–5 s; retries follow postern-agent's back-off (full jitter from 0.5 s).
// While the list is fetched and during the storms a worker thread asks GET /api/theme every 10 ms:
// the worst answer is how long the server's event loop was unavailable (plus this process's own lag
// on a shared machine).
// Each agent holds one socket here and one in the server: 10,000 need `ulimit -n` above about 10,100
// in the shell that runs the benchmark (both processes inherit it).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { FakeAgent } from '../../apps/server/src/test-support/fake-agent.js';
import * as grantBench from './grants.mjs';
import * as postern from './postern.mjs';
import * as store from './store.mjs';

// The JavaScript helpers the other sections share, with the types this file relies on.
interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}
interface RequestOptions {
  body?: unknown;
  cookie?: string;
  forwardedFor?: string;
  headers?: Record<string, string>;
}
interface BenchClient {
  request(method: string, url: string, options?: RequestOptions): Promise<Reply>;
  close(): void;
}
interface AdminApi {
  cookie: string;
  call(method: string, url: string, body?: unknown): Promise<unknown>;
}
const HttpClient = postern.HttpClient as new (port: number, maxSockets?: number) => BenchClient;
const startServer = postern.startServer as (settings: Record<string, string>) => Promise<{
  port: number;
  adminPassword: string;
  dbFile: string;
  process: { pid: number };
  stop(): Promise<void>;
}>;
const signInAdmin = postern.signInAdmin as (client: BenchClient, password: string) => Promise<AdminApi>;
const signInUser = postern.signInUser as (
  client: BenchClient,
  userName: string,
  password: string,
  address: string,
) => Promise<string>;
const cloneAgents = store.cloneAgents as (
  db: unknown,
  options: { templateAgentId: string; secretKeyFile: string; count: number },
) => { id: string; token: string }[];
const openStore = store.openStore as (file: string) => {
  prepare(sql: string): { get(): unknown };
  close(): void;
};

const FLEET = Number(process.env.POSTERN_BENCH_FLEET ?? 10_000);
const CREATE_CONCURRENCY = 32;
/** How many agents are made through the admin API; the others are copied in the store. */
const API_SAMPLE = 200;
/** postern-agent's default POSTERN_AGENT_HEARTBEAT_SECONDS. */
const HEARTBEAT_MS = 15_000;
const CPU_WINDOW_MS = 10_000;
const GRANT_ROUNDS = 20;
const STORM_JITTER_MS = 5_000;
/** postern-agent's reconnect back-off (apps/agent/src/runtime/backoff.ts): full jitter, 0.5 s doubling to 60 s. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 60_000;
/** No stage may take longer than this: a stuck run ends with an error instead of hanging. */
const STAGE_LIMIT_MS = 300_000;
const USER_ADDRESS = '198.51.100.7';
const PASSWORD = 'correct horse battery staple';

const log = (line: string) => console.error(`[fleet] ${line}`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

function vmRssMiB(pid: number): number {
  const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return kib / 1024;
}

/** utime + stime of a process in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}
/** Linux's USER_HZ, which /proc/<pid>/stat counts in; 100 on every common architecture. */
const TICKS_PER_SECOND = 100;

/** Runs `work` for each item with at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

/** Why connection attempts failed, and how often: printed on stderr after each stage. */
const failureReasons = new Map<string, number>();

/**
 * Connects the agent, waiting `jitterMs` at random first; a failed attempt waits postern-agent's
 * back-off and tries again. Resolves with the number of failed attempts.
 */
async function connectLikeAnAgent(agent: FakeAgent, jitterMs: number): Promise<number> {
  if (jitterMs > 0) await sleep(Math.random() * jitterMs);
  for (let failures = 0; ; failures += 1) {
    try {
      await agent.connect();
      return failures;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      failureReasons.set(reason, (failureReasons.get(reason) ?? 0) + 1);
      agent.terminate();
      if (failures > 20) throw new Error('an agent could not connect in 20 attempts', { cause: error });
      await sleep(Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** failures));
    }
  }
}

/** Connects the whole fleet; returns how long it took and how many attempts failed. */
async function connectFleet(agents: FakeAgent[], jitterMs: number): Promise<{ ms: number; failed: number }> {
  const started = performance.now();
  const failures = await Promise.all(agents.map((agent) => connectLikeAnAgent(agent, jitterMs)));
  for (const [reason, count] of failureReasons) log(`  ${count}× ${reason}`);
  failureReasons.clear();
  return { ms: performance.now() - started, failed: failures.reduce((sum, n) => sum + n, 0) };
}

/** A worker thread asking GET /api/theme every 10 ms; stop() resolves with the slowest answer in ms. */
function startProbe(port: number): { stop: () => Promise<number> } {
  const worker = new Worker(
    `const http = require('node:http');
     const { parentPort } = require('node:worker_threads');
     const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
     let worst = 0, running = true;
     parentPort.on('message', () => { running = false; });
     const once = () => new Promise((resolve) => {
       const started = performance.now();
       const req = http.get({ host: '127.0.0.1', port: ${port}, path: '/api/theme', agent }, (res) => {
         res.resume();
         res.on('end', () => resolve(performance.now() - started));
       });
       req.on('error', () => resolve(performance.now() - started));
     });
     (async () => {
       while (running) {
         worst = Math.max(worst, await once());
         await new Promise((resolve) => setTimeout(resolve, 10));
       }
       parentPort.postMessage(worst);
       agent.destroy();
     })();`,
    { eval: true },
  );
  return {
    stop: () =>
      new Promise<number>((resolve) => {
        worker.once('message', (worst: number) => {
          void worker.terminate();
          resolve(worst);
        });
        worker.postMessage('stop');
      }),
  };
}

async function withinLimit<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${STAGE_LIMIT_MS / 1000} s`)), STAGE_LIMIT_MS);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

const issued = await grantBench.benchLicence();
const licence = String(issued.licence);
const publicKey = String(issued.publicKey);
const server = await startServer({ POSTERN_TRUSTED_PROXIES: '127.0.0.1', POSTERN_LICENCE_PUBLIC_KEYS: publicKey });
const pid = server.process.pid;
const client = new HttpClient(server.port, CREATE_CONCURRENCY);
const db = openStore(server.dbFile);
const connectedInStore = () =>
  (db.prepare('select count(*) as n from agents where connection_id is not null').get() as { n: number }).n;
const agents: FakeAgent[] = [];
const heartbeats: NodeJS.Timeout[] = [];
const rows: { name: string; value: string }[] = [];
const row = (name: string, value: string) => {
  rows.push({ name, value });
  log(`${name}: ${value}`);
};

try {
  const admin = await signInAdmin(client, server.adminPassword);
  await admin.call('PUT', '/api/admin/settings/license', { License: licence });
  const baseUrl = `http://127.0.0.1:${server.port}`;

  // A sample through the admin API (what creating agents costs), the rest copied from the first
  // straight into the store with tokens made and sealed as the API does: far quicker for thousands.
  const createStarted = performance.now();
  const tokens: { id: string; token: string }[] = Array.from({ length: Math.min(FLEET, API_SAMPLE) });
  await eachLimited(
    tokens.map((_, i) => i),
    CREATE_CONCURRENCY,
    async (i) => {
      const created = (await admin.call('POST', '/api/admin/agents', { Name: `fleet-${i}` })) as {
        ID: string;
        Token: string;
      };
      tokens[i] = { id: created.ID, token: created.Token };
    },
  );
  const createMs = performance.now() - createStarted;
  row(
    `POST /api/admin/agents, ${CREATE_CONCURRENCY} at a time (${tokens.length} made so; the rest copied in the store)`,
    `${((tokens.length / createMs) * 1000).toFixed(0)} agents/s`,
  );
  const first = tokens[0] as { id: string; token: string };
  tokens.push(
    ...cloneAgents(db, {
      templateAgentId: first.id,
      secretKeyFile: path.join(path.dirname(server.dbFile), 'secret.key'),
      count: FLEET - tokens.length,
    }),
  );

  await sleep(2_000);
  const rssIdle = vmRssMiB(pid);
  for (const { token } of tokens) agents.push(new FakeAgent(baseUrl, token, { waitLimitMs: 60_000 }));

  // Heartbeats as postern-agent sends them, each agent at its own phase, from the start: the server
  // drops a connection that stays silent for 60 s, and connecting thousands can take longer.
  for (const agent of agents) {
    const phase = setTimeout(
      () => heartbeats.push(setInterval(() => agent.heartbeat(), HEARTBEAT_MS)),
      Math.random() * HEARTBEAT_MS,
    );
    heartbeats.push(phase);
  }
  log(`connecting ${FLEET} agents at once`);
  const connectTicks = cpuTicks(pid);
  const connect = await withinLimit('connecting the fleet', connectFleet(agents, 0));
  row(
    `${FLEET.toLocaleString('en')} agents connect, all at once (challenge, key proof, hello, first state)`,
    `${seconds(connect.ms)}, ${connect.failed} failed attempts retried`,
  );
  // The server's own CPU time for it: unlike the wall time, it does not grow with other work on the
  // machine (the stand-ins themselves run beside the server on the same cores).
  row(
    '  server CPU time per connection set-up (first connection: the key enrolled)',
    `${(((cpuTicks(pid) - connectTicks) / TICKS_PER_SECOND / FLEET) * 1000).toFixed(2)} ms`,
  );
  // The user's knoc lives on the first agent's backend (ipset, a set the stand-in reports).
  const backend = (await admin.call('POST', '/api/admin/backends', {
    Name: 'fleet ipset',
    AgentID: first.id,
    Config: { ipset: {} },
  })) as { ID: string };
  const knoc = (await admin.call('POST', '/api/admin/acls', {
    Description: 'Fleet service',
    BackendID: backend.ID,
    Config: { ipset: { V4SetName: 'postern4' } },
  })) as { ID: string };
  const { User: user } = (await admin.call('POST', '/api/admin/users', {
    Name: 'Fleet user',
    UserName: 'fleet-user',
    AuthType: 'local',
    PlainPassword: PASSWORD,
    ConfirmPassword: PASSWORD,
    TOTPEnabled: false,
    Duration: 480,
  })) as { User: { ID: string } };
  await admin.call('POST', '/api/admin/groups', {
    Name: 'fleet knocs',
    Type: 'local',
    ACLIDs: [knoc.ID],
    UserIDs: [user.ID],
  });
  const userCookie = await signInUser(client, 'fleet-user', PASSWORD, USER_ADDRESS);

  await sleep(2_000);
  const rssConnected = vmRssMiB(pid);
  row('server memory (VmRSS): idle / fleet connected', `${rssIdle.toFixed(0)} MiB / ${rssConnected.toFixed(0)} MiB`);
  const ticksBefore = cpuTicks(pid);
  await sleep(CPU_WINDOW_MS);
  const cpuPercent = ((cpuTicks(pid) - ticksBefore) / TICKS_PER_SECOND / (CPU_WINDOW_MS / 1000)) * 100;
  row(
    `server CPU with the fleet connected and heartbeating every ${HEARTBEAT_MS / 1000} s`,
    `${cpuPercent.toFixed(1)} % of one core`,
  );

  // Grant → apply on the agent behind the knoc, and the revoke's apply between rounds.
  const target = agents[0] as FakeAgent;
  const grantMs: number[] = [];
  for (let round = 0; round < GRANT_ROUNDS; round += 1) {
    const before = target.applies().length;
    const started = performance.now();
    const granted = await client.request('POST', '/api/grant', {
      body: { ACLID: knoc.ID, IPs: [] },
      cookie: userCookie,
      forwardedFor: USER_ADDRESS,
    });
    if (granted.status !== 200) throw new Error(`POST /api/grant answered ${granted.status}: ${granted.text}`);
    await target.waitFor(() => target.applies().length > before, 'the apply');
    grantMs.push(performance.now() - started);
    const revoked = await client.request('DELETE', `/api/sessions/current/granted-acls/${knoc.ID}`, {
      cookie: userCookie,
      forwardedFor: USER_ADDRESS,
    });
    if (revoked.status !== 200) throw new Error(`revoke answered ${revoked.status}: ${revoked.text}`);
    await target.waitFor(() => target.applies().length > before + 1, 'the revoke');
  }
  row(
    `grant → apply received by the agent, fleet connected, median of ${GRANT_ROUNDS}`,
    `${median(grantMs).toFixed(1)} ms`,
  );

  // The agent list with the fleet, and its revalidation.
  const listProbe = startProbe(server.port);
  const listStarted = performance.now();
  const list = await client.request('GET', '/api/admin/agents', { cookie: admin.cookie });
  const listMs = performance.now() - listStarted;
  if (list.status !== 200) throw new Error(`GET /api/admin/agents answered ${list.status}`);
  const listBytes = Buffer.byteLength(list.text);
  const etag = list.headers.etag as string | undefined;
  let revalidation = 'no ETag';
  if (etag !== undefined) {
    const again = performance.now();
    const second = await client.request('GET', '/api/admin/agents', {
      cookie: admin.cookie,
      headers: { 'if-none-match': etag },
    });
    revalidation = `If-None-Match: ${second.status} in ${(performance.now() - again).toFixed(0)} ms, ${Buffer.byteLength(second.text)} bytes`;
  }
  const listWorst = await listProbe.stop();
  row(
    `GET /api/admin/agents with ${FLEET.toLocaleString('en')} agents`,
    `${listMs.toFixed(0)} ms, ${(listBytes / 1024 / 1024).toFixed(2)} MiB; ${revalidation}`,
  );
  row('  slowest GET /api/theme meanwhile (probed every 10 ms)', `${listWorst.toFixed(0)} ms`);

  for (const jitterMs of [0, STORM_JITTER_MS]) {
    const label = jitterMs === 0 ? 'all at once' : `each after a random 0–${jitterMs / 1000} s`;
    const probe = startProbe(server.port);
    const cutAt = performance.now();
    for (const agent of agents) agent.terminate();
    await withinLimit(
      'the server noticing the cut connections',
      (async () => {
        while (connectedInStore() > 0) await sleep(100);
      })(),
    );
    const droppedMs = performance.now() - cutAt;
    const stormTicks = cpuTicks(pid);
    const storm = await withinLimit('the reconnect storm', connectFleet(agents, jitterMs));
    const stormCpuMs = ((cpuTicks(pid) - stormTicks) / TICKS_PER_SECOND / FLEET) * 1000;
    const worst = await probe.stop();
    const online = connectedInStore();
    row(
      `reconnect storm, ${label}: every socket cut, until all have their state again`,
      `${seconds(storm.ms)} (server recorded all ${FLEET.toLocaleString('en')} gone ${seconds(droppedMs)} after the cut), ${storm.failed} failed attempts retried, ${online.toLocaleString('en')} online in the store, server CPU ${stormCpuMs.toFixed(2)} ms per connection`,
    );
    row('  slowest GET /api/theme meanwhile (probed every 10 ms)', `${worst.toFixed(0)} ms`);
  }
  console.log(JSON.stringify({ fleet: FLEET, rows }));
} finally {
  for (const timer of heartbeats) clearTimeout(timer);
  for (const agent of agents) agent.terminate();
  client.close();
  db.close();
  await server.stop();
}
