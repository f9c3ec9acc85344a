// The built Postern server on a fresh SQLite store, and small HTTP clients for the admin and user APIs.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib.mjs';
import { freePort, startProcess, waitUntil } from './processes.mjs';

const PASSWORD_LINE = /shown only this once:\n\n\s+(\S+)\n/;

/**
 * With POSTERN_BENCH_PROFILE_DIR set, the server and the agents write V8 CPU profiles there when they
 * stop (open them in Chrome DevTools): where the time of the grant figures goes.
 * POSTERN_BENCH_PROFILE_INTERVAL_US sets the sampling interval (default 1000 µs).
 */
export function profileFlags(name) {
  const dir = process.env.POSTERN_BENCH_PROFILE_DIR;
  return dir
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${path.resolve(dir)}`,
        `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`,
        // A grant takes a few milliseconds: the default 1 ms sampling sees little of it.
        `--cpu-prof-interval=${process.env.POSTERN_BENCH_PROFILE_INTERVAL_US ?? '1000'}`,
      ]
    : [];
}

/** The environment without Postern's own settings, so nothing from the shell changes the store. */
function cleanEnv(extra) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('POSTERN_') && key !== 'DATABASE_URL') env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Starts `node apps/server/dist/main.js serve` on 127.0.0.1, a free port and a new data directory
 * (the SQLite store's, unless `settings` names a DATABASE_URL). On a new store it waits for the first
 * admin's password; with `firstAdmin: false` (a second replica on a store that has its admin) for
 * /readyz. Returns { port, adminPassword, dbFile (null on PostgreSQL), process, stop() }.
 */
export async function startServer(settings = {}, { firstAdmin = true } = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-bench-grants-'));
  const server = startProcess(
    [process.execPath, ...profileFlags('server'), path.join(ROOT, 'apps/server/dist/main.js'), 'serve'],
    {
      cwd: ROOT,
      env: cleanEnv({
        POSTERN_DATA_DIR: dataDir,
        POSTERN_PORT: String(port),
        POSTERN_HOST: '127.0.0.1',
        POSTERN_LOG_LEVEL: 'warn',
        POSTERN_IP_DISCOVERY_PORTS: 'off',
        POSTERN_METRICS_LISTEN: 'off',
        ...settings,
      }),
    },
  );
  const stop = async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    if (firstAdmin) await server.waitFor(PASSWORD_LINE, 30_000);
    else await waitUntil(() => isReady(port, server), `the server on port ${port} to be ready`, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const adminPassword = firstAdmin ? PASSWORD_LINE.exec(server.output())[1] : null;
  if (settings.DATABASE_URL !== undefined) return { port, adminPassword, dbFile: null, process: server, stop };
  const dbFile = path.join(dataDir, 'postern.db');
  if (!existsSync(dbFile)) {
    await stop();
    throw new Error(`the server's SQLite store is not at ${dbFile}`);
  }
  return { port, adminPassword, dbFile, process: server, stop };
}

/** Whether the server answers /readyz with 200; throws with its output once it has ended. */
async function isReady(port, server) {
  if (!server.running) throw new Error(`the server ended before it was ready; output:\n${server.output()}`);
  try {
    const response = await fetch(`http://127.0.0.1:${port}/readyz`);
    return response.status === 200;
  } catch {
    return false;
  }
}

/** HTTP/1.1 with keep-alive to one server, as a browser talks to it. */
export class HttpClient {
  constructor(port, maxSockets = 64) {
    this.port = port;
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  /** Resolves with { status, headers, text } once the whole response has arrived. */
  request(method, url, { body, cookie, forwardedFor, headers = {} } = {}) {
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        {
          host: '127.0.0.1',
          port: this.port,
          method,
          path: url,
          agent: this.agent,
          headers: {
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
            ...(cookie ? { cookie } : {}),
            ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
            ...headers,
          },
        },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, text }));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** The `data` of a 2xx JSON answer; throws with the answer otherwise. */
  async call(method, url, options = {}) {
    const response = await this.request(method, url, options);
    if (response.status < 200 || response.status > 299) {
      throw new Error(`${method} ${url} answered ${response.status}: ${response.text.slice(0, 500)}`);
    }
    return response.text === '' ? null : JSON.parse(response.text).data;
  }

  close() {
    this.agent.destroy();
  }
}

/** `name=value` of the named cookie in a response, or throws. */
export function cookieFrom(response, name) {
  const cookie = (response.headers['set-cookie'] ?? []).find((value) => value.startsWith(`${name}=`));
  if (cookie === undefined)
    throw new Error(`no ${name} cookie (status ${response.status}: ${response.text.slice(0, 300)})`);
  return cookie.split(';')[0];
}

/** Signs in as postern-admin, postpones its TOTP enrolment, and returns a caller of the admin API and its session cookie. */
export async function signInAdmin(client, password) {
  const login = await client.request('POST', '/api/admin/login', {
    body: { UserName: 'postern-admin', Password: password },
  });
  const pending = cookieFrom(login, '__Host-postern_admin_session');
  const deferred = await client.request('POST', '/api/admin/otp/verify', {
    body: { deferEnrolment: true },
    cookie: pending,
  });
  const cookie = cookieFrom(deferred, '__Host-postern_admin_session');
  return { cookie, call: (method, url, body) => client.call(method, url, { body, cookie }) };
}

/** Signs a local user in from `address` (through the trusted proxy header); returns the cookie. */
export async function signInUser(client, userName, password, address) {
  const response = await client.request('POST', '/api/login', {
    body: { UserName: userName, Password: password, KioskMode: false },
    forwardedFor: address,
  });
  if (response.status !== 200) throw new Error(`sign-in of ${userName} failed: ${response.status} ${response.text}`);
  return cookieFrom(response, '__Host-postern_session');
}
