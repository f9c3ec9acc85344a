// Grant latency across replicas (issue 17 item 9): two built servers (A and B) on one PostgreSQL
// schema and the built agent in a network namespace, the same topology as the single-server figure
// (topology.mjs). First the agent connects to A and a user's grants go through A (one server on
// PostgreSQL: what the store costs); then the agent moves to B (its relay, standing for a load
// balancer, now sends it there) and the same user's grants still go through A, so each reaches the
// agent through B's change listener (a doorbell in the grant's transaction, heard by B, the entry
// read afresh from the store by B). Needs root, ip, ipset, iptables and a PostgreSQL server
// (POSTERN_BENCH_DATABASE_URL, else POSTERN_TEST_DATABASE_URL, else the local one on 127.0.0.1:5432).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describeLatencies, measureGrantLatency } from './grant-latency.mjs';
import { agentReady, agentStarter, benchLicence, createKnocs, createUserWithKnocs, onCleanUp } from './grants.mjs';
import { missingNetnsSupport } from './netns.mjs';
import { HttpClient, signInAdmin, signInUser, startServer } from './postern.mjs';
import { waitUntil } from './processes.mjs';
import { ms, percentile } from './report.mjs';
import { CLIENT_ADDRESS, createTopology } from './topology.mjs';

const PASSWORD = 'correct horse battery staple';

const DATABASE_URL =
  process.env.POSTERN_BENCH_DATABASE_URL ??
  process.env.POSTERN_TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/test';

/** Runs one SQL statement on its own connection. */
async function runSql(statement) {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A schema of its own for this run; returns the URL the servers use and registers its drop. */
async function benchSchema() {
  const schema = `postern_bench_${randomBytes(6).toString('hex')}`;
  await runSql(`create schema ${schema}`);
  onCleanUp(() => runSql(`drop schema ${schema} cascade`));
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Null when PostgreSQL answers at DATABASE_URL; else why not. */
async function missingPostgres() {
  try {
    await runSql('select 1');
    return null;
  } catch (error) {
    return `a PostgreSQL server at ${new URL(DATABASE_URL).host} (${error instanceof Error ? error.message : String(error)}; set POSTERN_BENCH_DATABASE_URL)`;
  }
}

/** Rows for one placement of the agent: grant and revoke, end to end and the server's part. */
function placementRows(label, { grant, revoke }) {
  return [
    { name: `${label}: grant → in the kernel set`, value: describeLatencies(grant.total) },
    { name: '  server: POST sent → apply message leaves for the agent', value: describeLatencies(grant.server) },
    { name: `${label}: revoke → out of the kernel set`, value: describeLatencies(revoke.total) },
    { name: '  server: DELETE sent → apply message leaves for the agent', value: describeLatencies(revoke.server) },
  ];
}

/**
 * Runs the figures; returns { section, note } or { skipped } (a reason) when this machine lacks
 * something. `singleServerP50` is the single-server (SQLite) figure, printed beside these.
 * Everything made is undone by cleanUpGrantBench().
 */
export async function runReplicaBenchmark({ singleServerP50 } = {}) {
  const missing = missingNetnsSupport() ?? (await missingPostgres());
  if (missing !== null) return { skipped: `grant latency across replicas needs ${missing}` };

  const databaseUrl = await benchSchema();
  const { licence, publicKey } = await benchLicence();
  const shared = {
    DATABASE_URL: databaseUrl,
    // Every replica needs the same key: the store's sealed secrets are opened with it.
    POSTERN_SECRET_KEY: randomBytes(32).toString('base64'),
    POSTERN_TRUSTED_PROXIES: '127.0.0.1',
    POSTERN_LICENCE_PUBLIC_KEYS: publicKey,
  };
  const serverA = await startServer(shared);
  onCleanUp(() => serverA.stop());
  const serverB = await startServer(shared, { firstAdmin: false });
  onCleanUp(() => serverB.stop());
  const client = new HttpClient(serverA.port);
  onCleanUp(() => client.close());

  const admin = await signInAdmin(client, serverA.adminPassword);
  await admin.call('PUT', '/api/admin/settings/license', { License: licence });
  const agentRecord = await admin.call('POST', '/api/admin/agents', { Name: 'bench-replicas' });
  const topology = await createTopology(serverA.port);
  onCleanUp(() => topology.dispose());
  const startAgent = agentStarter(topology, agentRecord.Token);
  let agent = startAgent();
  await agentReady(admin, agentRecord.ID, agent);
  const [aclId] = await createKnocs(admin, agentRecord.ID);
  await createUserWithKnocs(admin, 'bench-replicas', [aclId]);
  const cookie = await signInUser(client, 'bench-replicas', PASSWORD, CLIENT_ADDRESS);

  const onA = await measureGrantLatency({ topology, client, cookie, aclId });

  // Move the agent to B: new connections go there, and the agent reconnects after a restart.
  topology.retarget(serverB.port);
  await agent.stop('SIGTERM');
  await waitUntil(
    async () => !(await admin.call('GET', `/api/admin/agents/${agentRecord.ID}`)).Online,
    'the stopped agent to show offline',
    30_000,
  );
  agent = startAgent();
  await agentReady(admin, agentRecord.ID, agent);
  const acrossReplicas = await measureGrantLatency({ topology, client, cookie, aclId });

  const p50 = (samples) => ms(percentile(samples.grant.total, 0.5));
  return {
    section: {
      title: 'Grant latency across replicas (two servers on one PostgreSQL)',
      rows: [
        ...placementRows('one server on PostgreSQL, agent on it', onA.samples),
        ...placementRows('grant through replica A, agent on replica B', acrossReplicas.samples),
        {
          name: 'grant → in the kernel set, p50: one server on SQLite / on PostgreSQL / across replicas',
          value: `${singleServerP50 ?? 'not measured'} / ${p50(onA.samples)} / ${p50(acrossReplicas.samples)}`,
        },
      ],
    },
    note: `Across replicas: two built servers on one PostgreSQL schema (${new URL(DATABASE_URL).host}, same secret key), the agent and firewall as in the grant latency figure, rounds and timing as there. The user signs in and grants through replica A throughout. First the agent's relay sends it to A; then the relay is pointed at B and the agent restarted, so each grant made on A reaches the agent through B: the grant's transaction rings a doorbell (a PostgreSQL trigger calling pg_notify), B's listening connection hears it and B reads the entry from the store and sends it. "server" there is A's request plus B's part, up to the apply frame leaving B.`,
  };
}
