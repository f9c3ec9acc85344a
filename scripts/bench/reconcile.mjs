// Figure: how long the agent takes to put 10,000 running grants into the kernel set when it starts,
// with `ipset restore` of the same 10,000 entries as the floor.
import path from 'node:path';
import { run, sleep, waitUntil } from './processes.mjs';
import { ms, percentile } from './report.mjs';
import { GRANT_SET } from './topology.mjs';
import { grantedCount, insertRunningGrants } from './store.mjs';

const ENTRIES = 10_000;
const POLL_INTERVAL_MS = 20;
const FLOOR_SET = 'pbench-floor';
const FLOOR_RUNS = 3;

/** 10,000 distinct addresses in 198.18.0.0/15, the range set aside for benchmarks (RFC 2544). */
function benchmarkAddresses(count) {
  return Array.from(
    { length: count },
    (_, i) => `198.${18 + Math.floor(i / 62_500)}.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`,
  );
}

const elapsedMs = (from, to = process.hrtime.bigint()) => Number(to - from) / 1e6;

/** `ipset restore` of the entries into a scratch set, as a separate process like the agent's: median of runs. */
async function restoreFloor(topology, addresses) {
  const ns = topology.protectedNs;
  await ns.exec(['ipset', 'create', FLOOR_SET, 'hash:ip', 'family', 'inet', 'timeout', '0']);
  try {
    const script = `${addresses.map((ip) => `add ${FLOOR_SET} ${ip} timeout 3600`).join('\n')}\n`;
    const times = [];
    for (let i = 0; i < FLOOR_RUNS; i += 1) {
      await ns.exec(['ipset', 'flush', FLOOR_SET]);
      const started = process.hrtime.bigint();
      await ns.exec(['ipset', 'restore', '-exist'], script);
      times.push(elapsedMs(started));
    }
    // The same process start without work: what `ip netns exec … ipset` itself costs.
    const startTimes = [];
    for (let i = 0; i < FLOOR_RUNS; i += 1) {
      const started = process.hrtime.bigint();
      await ns.exec(['ipset', 'version']);
      startTimes.push(elapsedMs(started));
    }
    return { restoreMs: percentile(times, 0.5), processMs: percentile(startTimes, 0.5) };
  } finally {
    await ns.exec(['ipset', 'destroy', FLOOR_SET]).catch(() => undefined);
  }
}

/**
 * Starts the agent and polls the set's entry count every POLL_INTERVAL_MS until it holds `expected`.
 * Returns the time from just before the spawn to the end of the first poll that saw them all, and the
 * mean duration of one poll.
 */
async function timeAgentFill(topology, startAgent, expected) {
  const spawnedWallMs = Date.now();
  const started = process.hrtime.bigint();
  const agent = startAgent({ logLevel: 'info' });
  const pollTimes = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pollStarted = process.hrtime.bigint();
    const count = await topology.setCount(GRANT_SET);
    pollTimes.push(elapsedMs(pollStarted));
    if (count >= expected) {
      return { agent, started, fillMs: elapsedMs(started), pollMs: percentile(pollTimes, 0.5), spawnedWallMs };
    }
    if (!agent.running) throw new Error(`the agent ended while filling the set:\n${agent.output()}`);
    if (Date.now() > deadline) throw new Error(`the set held ${count} of ${expected} entries after 60 s`);
    await sleep(Math.max(0, POLL_INTERVAL_MS - pollTimes.at(-1)));
  }
}

/** Milliseconds from the agent's spawn to its first log line carrying `message`, or null. */
function logMoment(agent, spawnedWallMs, message) {
  for (const line of agent.output().split('\n')) {
    if (!line.includes(message)) continue;
    try {
      return JSON.parse(line).time - spawnedWallMs;
    } catch {
      // Not a JSON line.
    }
  }
  return null;
}

function describeMoments(agent, spawnedWallMs) {
  const moments = [
    ['program running', 'postern-agent starting'],
    ['restored from the state file', 'restored entries from the state file'],
    ['connected', 'connected to the server'],
    ["server's desired state applied", 'applied the desired state'],
  ]
    .map(([label, message]) => [label, logMoment(agent, spawnedWallMs, message)])
    .filter(([, at]) => at !== null)
    .map(([label, at]) => `${label} at ${at} ms`);
  return moments.length === 0 ? 'no log moments' : moments.join(', ');
}

/**
 * Runs the figure with the agent that is running now (`currentAgent`), which it stops and restarts.
 * Returns { rows, notes, agent } with the agent left running.
 */
export async function measureReconcile({ topology, db, aclId, currentAgent, startAgent, agentProgram }) {
  const addresses = benchmarkAddresses(ENTRIES);
  const floor = await restoreFloor(topology, addresses);

  // Bare start of the agent's program: Node.js and its modules, nothing else.
  const bareStarted = process.hrtime.bigint();
  await run([process.execPath, agentProgram, '--version']);
  const bareStartMs = elapsedMs(bareStarted);

  insertRunningGrants(db, { aclId, addresses, ttlMs: 3_600_000 });
  await currentAgent.stop('SIGTERM');

  // 1. The agent's state file does not know these grants: they come from the server's desired state.
  const cold = await timeAgentFill(topology, startAgent, ENTRIES);
  await waitUntil(
    () => grantedCount(db, aclId) >= ENTRIES,
    'the server to record 10,000 grants as Granted',
    60_000,
    POLL_INTERVAL_MS,
  );
  const recordedMs = elapsedMs(cold.started);
  const coldMoments = describeMoments(cold.agent, cold.spawnedWallMs);

  // 2. A restart (the brief's case): stopped with SIGTERM, the set emptied as by a reboot, started again.
  await sleep(500);
  await cold.agent.stop('SIGTERM');
  await topology.protectedNs.exec(['ipset', 'flush', GRANT_SET]);
  if ((await topology.setCount(GRANT_SET)) !== 0) throw new Error('the set is not empty after ipset flush');
  const restart = await timeAgentFill(topology, startAgent, ENTRIES);
  // Let it finish converging with the server, for its log's moments and a quiet stop.
  await restart.agent.waitFor(/applied the desired state/, 30_000);
  const restartMoments = describeMoments(restart.agent, restart.spawnedWallMs);

  const rows = [
    {
      name: `agent restart → ${ENTRIES.toLocaleString('en')} entries in the emptied set`,
      value: ms(restart.fillMs, 0),
      target: '< 1 s',
      met: restart.fillMs < 1000,
    },
    {
      name: `agent start → ${ENTRIES.toLocaleString('en')} entries (from the server's desired state)`,
      value: ms(cold.fillMs, 0),
    },
    { name: '  … and the server has recorded all of them as Granted', value: ms(recordedMs, 0) },
    { name: `ipset restore of ${ENTRIES.toLocaleString('en')} entries (floor)`, value: ms(floor.restoreMs, 1) },
    { name: '  of which starting ip netns exec + ipset', value: ms(floor.processMs, 1) },
    { name: `agent program start (node ${path.basename(agentProgram)} --version)`, value: ms(bareStartMs, 0) },
    { name: 'set polling granularity', value: `every ${POLL_INTERVAL_MS} ms, one poll ${ms(restart.pollMs, 1)}` },
  ];
  const notes = [
    `Reconcile: ${ENTRIES.toLocaleString('en')} running grants written straight into the store (session-less, origin 'admin', Pending, one hour left, addresses in 198.18.0.0/15) on the benchmark knoc.`,
    `"agent start": the agent is stopped, then started with a state file that does not hold these grants, so they arrive in the server's desired state over the WebSocket (${coldMoments}; times from the spawn, from the agent's info log). The server then recorded all of them as Granted.`,
    `"agent restart": that agent is stopped with SIGTERM, the set is flushed (as a reboot empties it), and the agent started again: it restores from its state file before connecting (${restartMoments}).`,
    `Both are measured from just before the spawn to the end of the first \`ipset list -t\` poll (every ${POLL_INTERVAL_MS} ms; one poll takes about ${ms(restart.pollMs, 1)} because it starts ip and ipset) whose "Number of entries" showed all of them: late by up to one poll interval. They include starting Node.js and the agent's modules (the "program start" row).`,
    `The floor is one \`ipset restore -exist\` of the same ${ENTRIES.toLocaleString('en')} add lines into an empty set, median of ${FLOOR_RUNS}, process start included.`,
  ];
  return { rows, notes, agent: restart.agent };
}
