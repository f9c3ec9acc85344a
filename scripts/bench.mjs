// npm run bench: starts the built server on a fresh store and prints figures: start-up time, memory,
// sign-in latency, request throughput, how long requests wait during a logo upload
// (scripts/bench/logo-upload.mjs) and the web app's initial JavaScript weight; then the grant
// engine's figures (scripts/bench/grants.mjs), the same across two replicas on PostgreSQL
// (scripts/bench/replicas.mjs), the vendor drivers' (scripts/bench/vendor-drivers.ts)
// and a fleet of stand-in agents' (scripts/bench/fleet.ts; POSTERN_BENCH_FLEET agents, default
// 10,000), and writes them all to docs/benchmarks.md. Figures
// only (a missed target does not fail the run); the tests never assert timings.
//
// For digging into the grant figures: POSTERN_BENCH_PROFILE_DIR=<dir> makes the grant benchmark's
// server and agents write V8 CPU profiles there; POSTERN_BENCH_PROBER_NICE sets the connection
// prober's nice level (default 19; see scripts/bench/grant-latency.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, ensureDependencies, ensureNodeVersion, ROOT } from './lib.mjs';

ensureNodeVersion();
ensureDependencies();
build();

// Loaded after the build: they import the built server's modules.
const { cleanUpGrantBench, runGrantBenchmarks } = await import('./bench/grants.mjs');
const { runReplicaBenchmark } = await import('./bench/replicas.mjs');
const { printSections, writeMarkdown } = await import('./bench/report.mjs');
const { LOGO_UPLOAD_NOTE, logoUploadRow, measureLogoUpload } = await import('./bench/logo-upload.mjs');
// Ctrl-C: stop what was started and delete the namespaces before leaving.
let interrupted = false;
process.once('SIGINT', () => {
  interrupted = true;
  console.error('\ninterrupted; cleaning up');
  void cleanUpGrantBench().finally(() => process.exit(130));
});

const LOAD_SECONDS = 3;
const CONCURRENCY = 16;

const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-bench-'));
const started = performance.now();
const server = spawn(process.execPath, [path.join(ROOT, 'apps/server/dist/main.js'), 'serve'], {
  env: {
    ...process.env,
    POSTERN_DATA_DIR: dataDir,
    POSTERN_PORT: String(port),
    POSTERN_LOG_LEVEL: 'warn',
    POSTERN_IP_DISCOVERY_PORTS: 'off',
    POSTERN_METRICS_LISTEN: 'off',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
server.stdout.on('data', (chunk) => (output += chunk));
const password = await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('server did not start within 30 s')), 30_000);
  server.stdout.on('data', () => {
    const match = /shown only this once:\n\n\s+(\S+)\n/.exec(output);
    if (match) {
      clearTimeout(timer);
      resolve(match[1]);
    }
  });
});
const startupMs = performance.now() - started;

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
let serverRows;
try {
  const rssIdle = rssMiB(server.pid);
  const loginMs = [];
  let pendingCookie = '';
  for (let i = 0; i < 10; i += 1) {
    const t0 = performance.now();
    const response = await request('POST', '/api/admin/login', { UserName: 'postern-admin', Password: password });
    loginMs.push(performance.now() - t0);
    pendingCookie = String(response.headers['set-cookie']?.[0] ?? '').split(';')[0];
  }
  // The first admin has TOTP on; postpone its enrolment once to get a fully signed-in session.
  const deferred = await request('POST', '/api/admin/otp/verify', { deferEnrolment: true }, pendingCookie);
  const cookie = String(deferred.headers['set-cookie']?.[0] ?? '').split(';')[0];
  const theme = await load('GET', '/api/theme');
  const adminStatus = await load('GET', '/api/admin/status', cookie);
  const rssLoaded = rssMiB(server.pid);
  const logoUpload = await measureLogoUpload({ port, cookie });

  const rows = [
    ['server start-up (new store, migrations, first admin)', `${startupMs.toFixed(0)} ms`],
    ['server memory idle (RSS)', `${rssIdle.toFixed(1)} MiB`],
    ['server memory after load (RSS)', `${rssLoaded.toFixed(1)} MiB`],
    ['admin sign-in (argon2id m=46 MiB), median of 10', `${median(loginMs).toFixed(1)} ms`],
    [`GET /api/theme, ${CONCURRENCY} concurrent`, describeLoad(theme)],
    [`GET /api/admin/status (signed in), ${CONCURRENCY} concurrent`, describeLoad(adminStatus)],
    ['user portal initial JavaScript (gzip)', `${(initialJavaScriptBytes() / 1024).toFixed(1)} KiB`],
  ];
  serverRows = [...rows.map(([name, value]) => ({ name, value })), logoUploadRow(logoUpload)];
} finally {
  agent.destroy();
  server.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}

let grants;
let replicas;
try {
  grants = await runGrantBenchmarks();
  const singleServerP50 = grants.sections
    .flatMap((section) => section.rows)
    .find((row) => row.name.startsWith('grant → in the kernel set, '))?.value;
  replicas = await runReplicaBenchmark({ singleServerP50 });
} catch (error) {
  await cleanUpGrantBench();
  if (interrupted) process.exit(130);
  console.error(`A grant benchmark broke: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}
await cleanUpGrantBench();
const fleet = fleetSection();
const sections = [
  { title: 'Server', rows: serverRows },
  ...grants.sections,
  ...(replicas.section === undefined ? [] : [replicas.section]),
  vendorDriverSection(),
  agentListSection(),
  fleet.section,
];
const skipped = [...grants.skipped, ...(replicas.skipped === undefined ? [] : [replicas.skipped])];
printSections(sections, skipped);
const written = writeMarkdown(ROOT, sections, skipped, [
  LOGO_UPLOAD_NOTE,
  ...grants.notes,
  ...(replicas.note === undefined ? [] : [replicas.note]),
  fleet.note,
]);
console.log(`\nWritten to ${path.relative(ROOT, written)}`);

/**
 * The vendor drivers' figures (scripts/bench/vendor-drivers.ts, run from source through tsx like the
 * agent's tests, since the contract fakes are test code).
 */
function vendorDriverSection() {
  const figures = tsxFigures('scripts/bench/vendor-drivers.ts', 'vendor driver');
  return {
    title: 'Vendor drivers (FortiOS contract fake on loopback)',
    rows: [
      {
        name: `grant → applied on the fake, median (${figures.callsPerGrant} API calls incl. the read-back)`,
        value: `${figures.grantMedianMs.toFixed(2)} ms`,
      },
      {
        name: 'agent overhead on top of the fake’s answers, median',
        value: `${figures.overheadMedianMs.toFixed(2)} ms (one plain round trip: ${figures.roundTripMedianMs.toFixed(2)} ms)`,
      },
      {
        name: `reconcile of ${figures.reconcileEntries.toLocaleString('en')} grants into an empty group`,
        value: `${figures.reconcileMs.toFixed(0)} ms`,
      },
    ],
  };
}

/**
 * The admin agent list's figures at 10,000 agents (scripts/bench/agent-list.ts, run from source
 * through tsx on a SQLite store like the server's API tests).
 */
function agentListSection() {
  const figures = tsxFigures('scripts/bench/agent-list.ts', 'agent list');
  return {
    title: `Admin agent list (${figures.agents.toLocaleString('en')} agents, SQLite)`,
    rows: [
      {
        name: 'changed list: GET /api/admin/agents, median',
        value: `${figures.listMedianMs.toFixed(0)} ms, ${(figures.bytes / 1e6).toFixed(2)} MB`,
      },
      {
        name: 'longest event-loop stall: building the list / the whole injected request',
        value: `${figures.longestBuildStallMs.toFixed(1)} ms / ${figures.longestRequestStallMs.toFixed(1)} ms`,
      },
      { name: 'unchanged list: 304 on If-None-Match, median', value: `${figures.notModifiedMedianMs.toFixed(2)} ms` },
    ],
  };
}

/** Runs a benchmark script from source through tsx and returns the JSON of its last line. */
function tsxFigures(script, what) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, script)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !line.startsWith('{')) {
    console.error(`The ${what} benchmark broke:\n${run.stderr}`);
    process.exit(1);
  }
  return JSON.parse(line);
}

/**
 * Many agents (scripts/bench/fleet.ts, through tsx: its stand-in agents are the server's test code).
 * Its progress goes to the terminal; its rows come back as the last line of its output.
 */
function fleetSection() {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/bench/fleet.ts')], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  if (run.status !== 0 || !line.startsWith('{')) {
    console.error('The fleet benchmark broke (its output is above).');
    process.exit(1);
  }
  const { fleet, rows } = JSON.parse(line);
  return {
    section: { title: `Many agents (${fleet.toLocaleString('en')} stand-in agents on loopback)`, rows },
    note: `Many agents: ${fleet.toLocaleString('en')} protocol-level stand-ins (apps/server/src/test-support/fake-agent.ts: real WebSocket, key proof, hello, results; heartbeats sent by the benchmark every 15 s, postern-agent's default) in one Node.js process next to the server. 200 agents are made through POST /api/admin/agents (its rate is a row), the rest copied from the first straight into the store with their own tokens, hashed and sealed with the server's key as the API does (through the API 10,000 would take minutes). Connects are all at once, as agents started together do (postern-agent connects at once on start); a failed attempt retries after postern-agent's back-off (full jitter from 0.5 s). Memory is the server's VmRSS, CPU its utime+stime over 10 s. Grant → apply: POST /api/grant by a signed-in user until the stand-in behind the knoc has the apply message, then a revoke, 20 rounds. The storms cut every socket without a closing handshake, wait until the store shows none connected, then reconnect all (at once, then each after a random 0–5 s). A worker thread meanwhile asks GET /api/theme every 10 ms; its slowest answer includes the benchmark process's own lag on the shared cores. Fleet size: POSTERN_BENCH_FLEET.`,
  };
}

function request(method, url, body, cookie) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: url,
        agent,
        headers: {
          ...(payload ? { 'content-type': 'application/json' } : {}),
          ...(cookie ? { cookie } : {}),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Runs CONCURRENCY request loops for LOAD_SECONDS; returns throughput and latency percentiles. */
async function load(method, url, cookie) {
  const latencies = [];
  let errors = 0;
  const deadline = performance.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const response = await request(method, url, undefined, cookie);
        if (response.statusCode !== 200) errors += 1;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / LOAD_SECONDS,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
    errors,
  };
}

function describeLoad({ perSecond, p50, p99, errors }) {
  return `${perSecond.toFixed(0)} req/s, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, ${errors} errors`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

/** Gzipped size of the scripts index.html loads up front (entry and modulepreloads). */
function initialJavaScriptBytes() {
  const dist = path.join(ROOT, 'apps/web/dist');
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((match) => match[1]);
  return files.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(dist, file))).length, 0);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
}
