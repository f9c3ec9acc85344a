// Figure: GET /api/status throughput with many signed-in users, each request as a random one of them.
import { HttpClient } from './postern.mjs';
import { ms, percentile } from './report.mjs';

const LOAD_SECONDS = 5;
const CONCURRENCY = 32;

/** Loads the server; `cookies` are the users' session cookies, `knocsPerUser` what each must see. */
export async function measureStatusLoad({ port, cookies, knocsPerUser }) {
  const client = new HttpClient(port, CONCURRENCY);
  try {
    // Users' status must list their knocs, or the load would measure an empty answer.
    for (const cookie of [cookies[0], cookies.at(-1)]) {
      const sample = await client.call('GET', '/api/status', { cookie });
      if (sample.ACLs.length !== knocsPerUser) {
        throw new Error(`a bench user's status lists ${sample.ACLs.length} knocs, not ${knocsPerUser}`);
      }
    }
    const latencies = [];
    let errors = 0;
    let firstError = '';
    const started = performance.now();
    const deadline = started + LOAD_SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < deadline) {
          const cookie = cookies[Math.floor(Math.random() * cookies.length)];
          const t0 = performance.now();
          const response = await client.request('GET', '/api/status', { cookie });
          latencies.push(performance.now() - t0);
          if (response.status !== 200) {
            errors += 1;
            firstError ||= `${response.status} ${response.text.slice(0, 200)}`;
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (errors > 0) console.warn(`GET /api/status: ${errors} errors, first: ${firstError}`);
    return {
      rows: [
        {
          name: `GET /api/status, ${cookies.length} signed-in users, ${CONCURRENCY} concurrent`,
          value: `${(latencies.length / seconds).toFixed(0)} req/s`,
        },
        {
          name: 'GET /api/status latency',
          value: `p50 ${ms(percentile(latencies, 0.5), 1)}, p99 ${ms(percentile(latencies, 0.99), 1)}, ${errors} errors`,
        },
      ],
      notes: [
        `Status load: ${cookies.length} users, each in one local group holding ${knocsPerUser} knocs (ipset backends on the agent), each with one running session. ${CONCURRENCY} request loops for ${LOAD_SECONDS} s over keep-alive connections, each request with a random user's session cookie. The users and sessions are copies of one user made through the admin API and signed in through POST /api/login (same password hash, group membership and session columns; a fresh random token per session, stored as its SHA-256 like sign-in does), written straight into the store to skip 1,000 argon2 hashes.`,
      ],
    };
  } finally {
    client.close();
  }
}
