// Figure: end-to-end grant latency, POST /api/grant → the address passes the protected host's
// firewall (server, WebSocket, agent, ipset, kernel), and the same for the revoke.
import path from 'node:path';
import readline from 'node:readline';
import { ROOT } from '../lib.mjs';
import { sleep, startProcess, waitUntil } from './processes.mjs';
import { percentile, ms } from './report.mjs';
import { CLIENT_ADDRESS, GRANT_SET, PROTECTED_ADDRESS, SERVICE_PORT } from './topology.mjs';

const WARM_UP = 10;
/** Rounds of each kernel anchor (see measureAnchors). */
const ANCHOR_ROUNDS = 100;
/** The prober's CPU priority (see startProber); POSTERN_BENCH_PROBER_NICE changes it for comparisons. */
const PROBER_NICE = process.env.POSTERN_BENCH_PROBER_NICE ?? '19';
const GRANTS = 250;
/** Quiet time between rounds, so the previous round's result messages are recorded first. */
const PAUSE_MS = 15;

/**
 * The prober (prober.mjs) inside the client namespace, at the lowest CPU priority: its back-to-back
 * connection attempts then take only CPU time the server, the agent and ipset leave idle on this
 * 2-core machine, instead of competing with them for it.
 */
async function startProber(topology, port) {
  const prober = startProcess(
    [
      ...topology.client.prefix,
      'nice',
      '-n',
      PROBER_NICE,
      process.execPath,
      path.join(ROOT, 'scripts/bench/prober.mjs'),
      PROTECTED_ADDRESS,
      String(port),
      CLIENT_ADDRESS,
    ],
    { stdin: 'pipe' },
  );
  const waiting = new Map();
  readline.createInterface({ input: prober.child.stdout }).on('line', (line) => {
    const [kind, id, ...rest] = line.split(' ');
    const waiter = waiting.get(`${kind === 'started' ? 'started' : 'result'} ${id}`);
    if (waiter === undefined) return;
    waiting.delete(`${kind === 'started' ? 'started' : 'result'} ${id}`);
    if (kind === 'timeout') waiter.reject(new Error(`the prober gave up on ${id} after ${rest[0]} attempts`));
    else if (kind === 'started') waiter.resolve();
    else waiter.resolve({ at: BigInt(rest[0]), attempts: Number(rest[1]), firstAt: BigInt(rest[2]) });
  });
  const expect = (key) => new Promise((resolve, reject) => waiting.set(key, { resolve, reject }));
  await prober.waitFor(/prober ready/);
  return {
    /**
     * Starts probing for `want` ('open' | 'closed'); resolves once the probing runs, with `outcome`:
     * a promise of what the prober saw (wrapped, or awaiting start would wait for the outcome).
     */
    async start(want, id) {
      const outcome = expect(`result ${id}`);
      const running = expect(`started ${id}`);
      prober.child.stdin.write(`${want} ${id}\n`);
      await running;
      return { outcome };
    },
    stop: () => prober.stop(),
  };
}

const elapsedMs = (from, to) => Number(to - from) / 1e6;

/** The anchor process (ipset-anchor.mjs) inside the protected namespace; `send` resolves once it handed the change over. */
async function startAnchor(topology) {
  const anchor = startProcess(
    [...topology.protectedNs.prefix, process.execPath, path.join(ROOT, 'scripts/bench/ipset-anchor.mjs')],
    { stdin: 'pipe' },
  );
  const waiting = new Map();
  readline.createInterface({ input: anchor.child.stdout }).on('line', (line) => {
    const [kind, id, ...rest] = line.split(' ');
    const waiter = waiting.get(id);
    if (waiter === undefined) return;
    waiting.delete(id);
    if (kind === 'sent') waiter.resolve();
    else waiter.reject(new Error(`the ipset anchor failed ${id}: ${rest.join(' ')}`));
  });
  await anchor.waitFor(/anchor ready/);
  return {
    send(mode, action, id) {
      const sent = new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
      anchor.child.stdin.write(`${mode} ${action} ${GRANT_SET} ${CLIENT_ADDRESS} ${id}\n`);
      return sent;
    },
    stop: () => anchor.stop(),
  };
}

/**
 * The anchors Postern's grant is judged against, measured with the same prober and clock: a line to
 * an already running `ipset -` (the limit: no process start, no server, no network hop) and a new
 * `ipset add`/`del` process per change, each from the moment the command is written to the anchor
 * process inside the protected namespace until the prober sees the connection admitted or refused.
 */
async function measureAnchors(topology, prober) {
  const anchor = await startAnchor(topology);
  const samples = { shell: { add: [], del: [] }, spawn: { add: [], del: [] } };
  try {
    for (const mode of ['shell', 'spawn']) {
      for (let round = 0; round < WARM_UP + ANCHOR_ROUNDS; round += 1) {
        for (const [action, want] of [
          ['add', 'open'],
          ['del', 'closed'],
        ]) {
          const id = `${mode}-${action}-${round}`;
          const { outcome } = await prober.start(want, id);
          const sentAt = process.hrtime.bigint();
          await anchor.send(mode, action, id);
          const seen = await outcome;
          if (round >= WARM_UP) samples[mode][action].push(elapsedMs(sentAt, seen.at));
          await sleep(PAUSE_MS);
        }
      }
    }
  } finally {
    await anchor.stop();
  }
  return samples;
}

/** A ratio as the figures print it: 4.2×. */
const times = (value) => `${value.toFixed(1)}×`;

/**
 * Runs the rounds; returns the rows of the figure, notes on how it was taken, and the samples in ms
 * ({ grant, revoke }, each { total, response, server, relay, agent }).
 */
export async function measureGrantLatency({
  topology,
  client,
  cookie,
  aclId,
  port = SERVICE_PORT,
  withAnchors = false,
  listSets = ['ipset', 'list'],
}) {
  const prober = await startProber(topology, port);
  const grant = { total: [], response: [], server: [], relay: [], agent: [] };
  const revoke = { total: [], response: [], server: [], relay: [], agent: [] };
  let attempts = 0;
  let probingMs = 0;
  const session = { cookie, forwardedFor: CLIENT_ADDRESS };
  let anchors;
  try {
    for (let round = 0; round < WARM_UP + GRANTS; round += 1) {
      const counted = round >= WARM_UP;
      for (const [kind, want, method, url, body, into] of [
        ['g', 'open', 'POST', '/api/grant', { ACLID: aclId, IPs: [] }, grant],
        ['r', 'closed', 'DELETE', `/api/sessions/current/granted-acls/${aclId}`, undefined, revoke],
      ]) {
        const { outcome } = await prober.start(want, `${kind}${round}`);
        const sentAt = process.hrtime.bigint();
        const response = await client.request(method, url, { ...session, body });
        const answeredAt = process.hrtime.bigint();
        if (response.status !== 200) throw new Error(`${method} ${url} answered ${response.status}: ${response.text}`);
        const seen = await outcome.catch(async (error) => {
          const members = await topology.protectedNs.exec(listSets).catch((e) => ({ stdout: String(e) }));
          throw new Error(`${error.message}; ${method} answered ${response.text}; sets: ${members.stdout}`);
        });
        // The relays report asynchronously; the frame has passed both by now, the report may lag.
        const applySent = await waitUntil(
          () => topology.applyMessageAfter(sentAt),
          `the apply message after ${method} ${url} to pass both relays`,
          2_000,
          1,
        );
        if (counted) {
          into.total.push(elapsedMs(sentAt, seen.at));
          into.response.push(elapsedMs(sentAt, answeredAt));
          into.server.push(elapsedMs(sentAt, applySent.host));
          into.relay.push(elapsedMs(applySent.host, applySent.inner));
          into.agent.push(elapsedMs(applySent.inner, seen.at));
          attempts += seen.attempts;
          probingMs += elapsedMs(seen.firstAt, seen.at);
        }
        await sleep(PAUSE_MS);
      }
    }
    if (withAnchors) anchors = await measureAnchors(topology, prober);
  } finally {
    await prober.stop();
  }
  const resolutionMs = probingMs / attempts;
  const rows = [
    {
      name: `grant → in the kernel set, ${GRANTS} grants: p50`,
      value: ms(percentile(grant.total, 0.5)),
      target: '< 5 ms',
      met: percentile(grant.total, 0.5) < 5,
    },
    {
      name: 'grant → in the kernel set: p99',
      value: ms(percentile(grant.total, 0.99)),
      target: '< 20 ms',
      met: percentile(grant.total, 0.99) < 20,
    },
    { name: 'grant → in the kernel set: all', value: describeLatencies(grant.total) },
    { name: '  server: POST sent → apply message leaves for the agent', value: describeLatencies(grant.server) },
    { name: '  test relays between server and agent', value: describeLatencies(grant.relay) },
    { name: '  agent: apply message → in the kernel set', value: describeLatencies(grant.agent) },
    { name: '  POST /api/grant response time', value: describeLatencies(grant.response) },
    { name: `revoke → out of the kernel set, ${GRANTS} revokes`, value: describeLatencies(revoke.total) },
    { name: '  server: DELETE sent → apply message leaves for the agent', value: describeLatencies(revoke.server) },
    { name: '  test relays between server and agent', value: describeLatencies(revoke.relay) },
    { name: '  agent: apply message → out of the kernel set', value: describeLatencies(revoke.agent) },
    { name: '  DELETE response time', value: describeLatencies(revoke.response) },
    { name: 'probe resolution (mean time per connection attempt)', value: ms(resolutionMs, 3) },
  ];
  if (anchors !== undefined) rows.push(...anchorRows(anchors, grant, revoke));
  const notes = [
    `Grant latency: ${GRANTS} rounds after ${WARM_UP} warm-up rounds, one signed-in user at ${CLIENT_ADDRESS} (seen through X-Forwarded-For from a trusted proxy). Each round: POST /api/grant, wait until the address passes the firewall, then DELETE the grant and wait until it is refused again, then ${PAUSE_MS} ms of quiet.`,
    `Timing: the benchmark reads the monotonic clock just before sending the request; a prober process in the client namespace (nice ${PROBER_NICE}) connects back to back from the client address to the protected listener (a refused attempt is answered with a TCP reset by iptables) and reads the same clock at the first connection that succeeds (grant) or is refused (revoke). The "probe resolution" row is the mean time of one attempt: the figures are late by at most that.`,
    "The agent's WebSocket runs through two small relays (the protected namespace's 127.0.0.1 → a unix socket → the server's 127.0.0.1) that a real deployment does not have; HTTP uses a keep-alive connection, as a browser does. The split uses the moments the server's `apply` frame passed each relay (the one in the benchmark process, then the one inside the protected namespace just before the agent): the server part ends when the frame left the server, the agent part starts when it was handed to the agent's socket, and the relay row between them is an artefact of this topology. The response rows are the request's own time as the client sees it (server work plus loopback); the apply message may leave before or after the response.",
  ];
  if (anchors !== undefined) notes.splice(1, 0, ANCHORS_NOTE);
  return { rows, notes, samples: { grant, revoke } };
}

/** How the anchors are taken, for the report's notes. */
const ANCHORS_NOTE = `Anchors: after the grant rounds, ${ANCHOR_ROUNDS} rounds (after ${WARM_UP} warm-up rounds) of each anchor through the same prober: a process in the protected namespace is told over a pipe to write one \`add\`/\`del\` line to an \`ipset -exist -\` it keeps running (the limit: what the kernel path costs from userspace, with no process start, no server and no network hop), or to spawn \`ipset -exist add|del\` for each change. The ratios divide Postern's grant and revoke percentiles by the limit's same percentile, measured in the same run.`;

/**
 * The anchor figures and Postern's grant and revoke as ratios of the limit (each percentile divided
 * by the limit's same percentile, from the same run).
 */
function anchorRows(anchors, grant, revoke) {
  const limit = (action, at) => percentile(anchors.shell[action], at);
  const ratio = (values, action, at) => percentile(values, at) / limit(action, at);
  const grantRatio = { p50: ratio(grant.total, 'add', 0.5), p99: ratio(grant.total, 'add', 0.99) };
  const revokeRatio = { p50: ratio(revoke.total, 'del', 0.5), p99: ratio(revoke.total, 'del', 0.99) };
  return [
    {
      name: `limit: a line to a running \`ipset -\` → admitted, ${ANCHOR_ROUNDS} rounds`,
      value: describeLatencies(anchors.shell.add),
    },
    { name: 'limit: a line to a running `ipset -` → refused', value: describeLatencies(anchors.shell.del) },
    { name: 'spawning `ipset add` → admitted', value: describeLatencies(anchors.spawn.add) },
    { name: 'spawning `ipset del` → refused', value: describeLatencies(anchors.spawn.del) },
    {
      name: 'grant → admitted ÷ limit: p50',
      value: times(grantRatio.p50),
      target: '≤ 4×',
      met: grantRatio.p50 <= 4,
    },
    { name: 'grant → admitted ÷ limit: p99', value: times(grantRatio.p99), target: '≤ 10×', met: grantRatio.p99 <= 10 },
    {
      name: 'revoke → refused ÷ limit: p50',
      value: times(revokeRatio.p50),
      target: '≤ 4×',
      met: revokeRatio.p50 <= 4,
    },
    {
      name: 'revoke → refused ÷ limit: p99',
      value: times(revokeRatio.p99),
      target: '≤ 10×',
      met: revokeRatio.p99 <= 10,
    },
  ];
}

/** p50, p95, p99 and max of latencies in milliseconds, as the figures print them. */
export function describeLatencies(values) {
  return `p50 ${ms(percentile(values, 0.5))}, p95 ${ms(percentile(values, 0.95))}, p99 ${ms(percentile(values, 0.99))}, max ${ms(Math.max(...values))}`;
}
