// The grant engine's figures (issue 4 item 10): end-to-end grant latency through server, WebSocket,
// agent and ipset; 10,000-grant reconcile after an agent restart; GET /api/status with 1,000
// signed-in users. Runs the built server on a fresh SQLite store and the built agent inside a
// network namespace (topology.mjs). Without root, ip, ipset or iptables the first two are skipped.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib.mjs';
import { describeLatencies, measureGrantLatency } from './grant-latency.mjs';
import { percentile } from './report.mjs';
import { missingNetnsSupport, removeAllNamespaces } from './netns.mjs';
import { HttpClient, profileFlags, signInAdmin, signInUser, startServer } from './postern.mjs';
import { killStarted, startProcess, waitUntil } from './processes.mjs';
import { measureReconcile } from './reconcile.mjs';
import { measureStatusLoad } from './status-load.mjs';
import { cloneSignedInUsers, openStore, sessionIdOfToken } from './store.mjs';
import {
  CLIENT_ADDRESS,
  EXTRA_SETS,
  GRANT_SET,
  NFT_SERVICE_PORT,
  NFT_SET,
  NFT_TABLE,
  createTopology,
} from './topology.mjs';

const STATUS_USERS = 1_000;
/** The single-file agent the install script installs (it starts in half the time of dist/main.js). */
export const AGENT_PROGRAM = path.join(ROOT, 'apps/agent/dist/postern-agent.mjs');
const PASSWORD = 'correct horse battery staple';
const SESSION_COOKIE = '__Host-postern_session';

const cleanups = [];

const NFTABLES_NOTE =
  "nftables lane: after the ipset rounds, the same rounds on a second knoc of the same user whose backend is an nftables set (table inet pbench, set pbench4 with flags timeout; its port accepted only from the set, else a TCP reset), through the same server, agent and prober; the ratios divide its percentiles by the ipset lane's same percentiles from this run.";

let cleaning = null;

/**
 * Undoes everything made so far, newest first. Ctrl-C and a failing run may both ask while it runs:
 * they share one cleanup, so neither exits half-way through the other's.
 */
export function cleanUpGrantBench() {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const cleanup = cleanups.pop();
      try {
        await cleanup();
      } catch (error) {
        console.error(`cleanup: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    killStarted();
    await removeAllNamespaces();
  })().finally(() => {
    // Done: later sections register cleanups of their own, undone by the next call.
    cleaning = null;
  });
  return cleaning;
}

/** Registers an undo step for {@link cleanUpGrantBench} (run newest first). */
export function onCleanUp(cleanup) {
  cleanups.push(cleanup);
}

/** A licence for this run, signed with a key made now and trusted through the server's environment. */
export async function benchLicence() {
  const format = await import(pathToFileURL(path.join(ROOT, 'apps/server/dist/licence/licence-format.js')).href);
  const signer = format.generateLicenceKeyPair();
  const now = Date.now();
  const licence = format.issueLicence(
    {
      ID: 'lic-bench',
      Licensee: 'Postern benchmark',
      UserLimit: 5_000,
      UserLimitOveragePercentage: 0,
      SessionLimit: 5,
      MaxMachines: 5,
      IssuedAt: new Date(now - 86_400_000).toISOString(),
      Expires: new Date(now + 86_400_000).toISOString(),
    },
    signer.privateKey,
  );
  return { licence, publicKey: format.publicKeyBase64(signer.publicKey) };
}

/** Capabilities of an ipset-capable agent, written to the store when no real agent can run here. */
const STAND_IN_CAPABILITIES = {
  'os-release': { NAME: 'benchmark', VERSION: '0' },
  ipset: {
    command_available: true,
    sudo_enabled: true,
    ipsets: [GRANT_SET, ...EXTRA_SETS].map((name) => ({
      name,
      address_family: 'inet',
    })),
  },
  script: { enabled: false },
  haproxy: { socket_location: '' },
  backend_types: ['ipset'],
};

/** Starts the agent inside the protected namespace, as its systemd unit would run it. */
export function agentStarter(topology, token) {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'postern-bench-agent-'));
  cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));
  return ({ logLevel = 'warn' } = {}) => {
    const started = startProcess(
      [...topology.protectedNs.prefix, process.execPath, ...profileFlags('agent'), AGENT_PROGRAM, 'run'],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
          POSTERN_AGENT_SERVER_URL: topology.agentServerUrl,
          POSTERN_AGENT_TOKEN: token,
          POSTERN_AGENT_STATE_FILE: path.join(stateDir, 'state.json'),
          POSTERN_AGENT_IPSET_ALLOWED_SETS: [GRANT_SET, ...EXTRA_SETS].join(','),
          POSTERN_AGENT_NFTABLES_ALLOWED_SETS: `inet/${NFT_TABLE}/${NFT_SET}`,
          POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
          POSTERN_AGENT_LOG_LEVEL: logLevel,
        },
      },
    );
    // SIGTERM (SIGKILL after 10 s): a profiled agent writes its profile on a normal exit.
    cleanups.push(() => started.stop('SIGTERM'));
    return started;
  };
}

/** Waits until the agent is connected and has said hello (Capabilities arrive with the hello). */
export async function agentReady(admin, agentId, agent) {
  await waitUntil(
    async () => {
      const record = await admin.call('GET', `/api/admin/agents/${agentId}`);
      return record.Online && record.Capabilities !== null;
    },
    'the agent to connect and say hello',
    20_000,
  ).catch((error) => {
    throw new Error(`${error.message}; agent output:\n${agent.output()}`);
  });
}

/** One ipset backend on the agent and a knoc per set; returns the knocs' ids, the grant knoc first. */
export async function createKnocs(admin, agentId) {
  const backend = await admin.call('POST', '/api/admin/backends', {
    Name: 'bench ipset',
    AgentID: agentId,
    Config: { ipset: {} },
  });
  const knocIds = [];
  for (const [index, set] of [GRANT_SET, ...EXTRA_SETS].entries()) {
    const knoc = await admin.call('POST', '/api/admin/acls', {
      Description: index === 0 ? 'Bench protected service' : `Bench service ${index}`,
      BackendID: backend.ID,
      Config: { ipset: { V4SetName: set } },
    });
    knocIds.push(knoc.ID);
  }
  return knocIds;
}

/** An nftables backend on the agent (the topology's inet table) and a knoc on its set; returns the knoc's id. */
export async function createNftablesKnoc(admin, agentId) {
  const backend = await admin.call('POST', '/api/admin/backends', {
    Name: 'bench nftables',
    AgentID: agentId,
    Config: { nftables: { Family: 'inet', Table: NFT_TABLE } },
  });
  const knoc = await admin.call('POST', '/api/admin/acls', {
    Description: 'Bench protected service (nftables)',
    BackendID: backend.ID,
    Config: { nftables: { V4SetName: NFT_SET } },
  });
  return knoc.ID;
}

/**
 * The nftables lane's figures: the same rounds on a knoc whose set is an nftables set, with the
 * ratio of its grant and revoke to the ipset lane's from the same run.
 */
function nftablesRows(nft, ipset) {
  const ratio = (lane, at) => percentile(nft[lane].total, at) / percentile(ipset[lane].total, at);
  return [
    { name: 'nftables: grant → in the kernel set', value: describeLatencies(nft.grant.total) },
    { name: '  agent: apply message → in the nftables set', value: describeLatencies(nft.grant.agent) },
    { name: 'nftables: revoke → out of the kernel set', value: describeLatencies(nft.revoke.total) },
    { name: '  agent: apply message → out of the nftables set', value: describeLatencies(nft.revoke.agent) },
    {
      name: 'nftables ÷ ipset, grant: p50',
      value: `${ratio('grant', 0.5).toFixed(2)}×`,
      target: '≤ 1.5×',
      met: ratio('grant', 0.5) <= 1.5,
    },
    { name: 'nftables ÷ ipset, grant: p99', value: `${ratio('grant', 0.99).toFixed(2)}×` },
    {
      name: 'nftables ÷ ipset, revoke: p50',
      value: `${ratio('revoke', 0.5).toFixed(2)}×`,
      target: '≤ 1.5×',
      met: ratio('revoke', 0.5) <= 1.5,
    },
    { name: 'nftables ÷ ipset, revoke: p99', value: `${ratio('revoke', 0.99).toFixed(2)}×` },
  ];
}

/** A local user made through the admin API, in a new local group holding `knocIds`. */
export async function createUserWithKnocs(admin, userName, knocIds) {
  const { User: user } = await admin.call('POST', '/api/admin/users', {
    Name: `${userName} (benchmark)`,
    UserName: userName,
    AuthType: 'local',
    PlainPassword: PASSWORD,
    ConfirmPassword: PASSWORD,
    TOTPEnabled: false,
    Duration: 480,
  });
  const group = await admin.call('POST', '/api/admin/groups', {
    Name: `${userName} knocs`,
    Type: 'local',
    ACLIDs: knocIds,
    UserIDs: [user.ID],
  });
  return { userId: user.ID, groupId: group.ID };
}

/** STATUS_USERS signed-in users with the knocs: one through the API, the rest copied from it. */
async function signedInStatusUsers({ admin, client, db, knocIds }) {
  const template = await createUserWithKnocs(admin, 'bench-user-template', knocIds);
  const templateCookie = await signInUser(client, 'bench-user-template', PASSWORD, '127.0.0.1');
  const tokens = cloneSignedInUsers(db, {
    templateUserId: template.userId,
    templateSessionId: await sessionIdOfToken(db, templateCookie.slice(SESSION_COOKIE.length + 1)),
    groupId: template.groupId,
    count: STATUS_USERS - 1,
  });
  return [templateCookie, ...tokens.map((token) => `${SESSION_COOKIE}=${token}`)];
}

/** Runs the figures; returns { sections, skipped, notes }. Throws when the benchmark itself breaks. */
export async function runGrantBenchmarks() {
  const missing = missingNetnsSupport();
  const skipped =
    missing === null
      ? []
      : [
          `grant latency and the 10,000-grant reconcile need ${missing}; GET /api/status ran with a stand-in agent record instead of a running agent`,
        ];
  const { licence, publicKey } = await benchLicence();
  const server = await startServer({
    POSTERN_TRUSTED_PROXIES: '127.0.0.1',
    POSTERN_LICENCE_PUBLIC_KEYS: publicKey,
  });
  cleanups.push(() => server.stop());
  const client = new HttpClient(server.port);
  cleanups.push(() => client.close());
  const db = openStore(server.dbFile);
  cleanups.push(() => db.close());

  const admin = await signInAdmin(client, server.adminPassword);
  await admin.call('PUT', '/api/admin/settings/license', { License: licence });
  const agentRecord = await admin.call('POST', '/api/admin/agents', {
    Name: 'bench-firewall',
  });

  let topology = null;
  let startAgent = null;
  let agent = null;
  if (missing === null) {
    topology = await createTopology(server.port);
    cleanups.push(() => topology.dispose());
    startAgent = agentStarter(topology, agentRecord.Token);
    agent = startAgent();
    await agentReady(admin, agentRecord.ID, agent);
  } else {
    db.prepare('update agents set capabilities = ? where id = ?').run(
      JSON.stringify(STAND_IN_CAPABILITIES),
      agentRecord.ID,
    );
  }
  const knocIds = await createKnocs(admin, agentRecord.ID);
  const [grantAclId] = knocIds;

  const sections = [];
  const notes = [];
  const record = ({ rows, notes: more }, title) => {
    sections.push({ title, rows });
    notes.push(...more);
  };
  if (topology !== null) {
    const nftAclId = await createNftablesKnoc(admin, agentRecord.ID);
    await createUserWithKnocs(admin, 'bench-latency', [grantAclId, nftAclId]);
    const cookie = await signInUser(client, 'bench-latency', PASSWORD, CLIENT_ADDRESS);
    const ipset = await measureGrantLatency({ topology, client, cookie, aclId: grantAclId, withAnchors: true });
    record(ipset, 'Grant latency (through server, WebSocket, agent, ipset)');
    const nft = await measureGrantLatency({
      topology,
      client,
      cookie,
      aclId: nftAclId,
      port: NFT_SERVICE_PORT,
      listSets: ['nft', 'list', 'table', 'inet', NFT_TABLE],
    });
    record(
      { rows: nftablesRows(nft.samples, ipset.samples), notes: [NFTABLES_NOTE] },
      'Grant latency on nftables (the same rounds, an nftables set)',
    );
  }
  const cookies = await signedInStatusUsers({ admin, client, db, knocIds });
  record(
    await measureStatusLoad({
      port: server.port,
      cookies,
      knocsPerUser: knocIds.length,
    }),
    'User status with 1,000 signed-in users',
  );
  if (topology !== null) {
    record(
      await measureReconcile({
        topology,
        db,
        aclId: grantAclId,
        currentAgent: agent,
        startAgent,
        agentProgram: AGENT_PROGRAM,
      }),
      'Reconcile after an agent restart',
    );
  }

  await cleanUpGrantBench();
  return { sections, skipped, notes };
}
