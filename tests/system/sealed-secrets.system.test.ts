import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, capture, cleanEnv, waitFor, type RunningProcess } from '@postern/test-support';
import { spawnPosternServer, sqliteStoreIn, type PosternServer } from './support/postern-server.js';
import { AdminApi } from './support/admin-api.js';
import { installLicence, PORTAL_SETTINGS } from './support/user-portal.js';
import { missingBuild, requireTool } from './support/requirements.js';
import { systemCommand } from './support/netns.js';

/**
 * A sensitive script variable end to end: entered in the admin API, sealed by the built server to
 * the built agent's key, kept sealed in the store and the agent's state file, and opened only for
 * the script, which sees the value. The store is SQLite so the test can read every byte of it.
 */

const SECRET = 'api-key-5f1e-never-in-plain-text';
const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;
const USER_IP = '198.51.100.23';
const missing = (systemCommand('sh') === null ? 'sh' : null) ?? missingBuild(REPO_ROOT);

/** Every file under `dir`, as bytes read as latin1 (so any text in them can be searched). */
function everyByteUnder(dir: string): string {
  let all = '';
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name);
    all += statSync(file).isDirectory() ? everyByteUnder(file) : readFileSync(file).toString('latin1');
  }
  return all;
}

describe('secrets sealed to the agent (system)', () => {
  let root: string;
  let dataDir: string;
  let records: string;
  let stateFile: string;
  let server: PosternServer | undefined;
  let agent: RunningProcess | undefined;
  let admin: AdminApi;
  let aclId: string;
  let userCookie: string;

  beforeAll(async () => {
    if (missing !== null) return;
    root = mkdtempSync(path.join(tmpdir(), 'postern-sealed-'));
    dataDir = path.join(root, 'data');
    records = path.join(root, 'records');
    const scripts = path.join(root, 'scripts');
    const stateDir = path.join(root, 'agent');
    for (const dir of [dataDir, records, stateDir]) mkdirSync(dir, { mode: 0o700 });
    mkdirSync(scripts, { mode: 0o755 });
    stateFile = path.join(stateDir, 'state.json');
    // Writes its environment, one file per run.
    writeFileSync(path.join(scripts, 'record.sh'), '#!/bin/sh\nenv > "$RECORD_DIR/run-$$.env"\n', { mode: 0o755 });

    const spawned = await spawnPosternServer(dataDir, PORTAL_SETTINGS);
    await spawned.process.waitForOutput(PASSWORD_LINE, 30_000);
    server = {
      url: spawned.url,
      adminPassword: PASSWORD_LINE.exec(spawned.process.stdout())?.[1] ?? '',
      store: 'sqlite',
      storeLocation: sqliteStoreIn(dataDir),
      process: spawned.process,
      stop: async () => {
        await spawned.process.stop();
      },
    };
    admin = await AdminApi.signIn(server);
    await installLicence(admin);
    const created = await admin.call<{ ID: string; Token: string }>('POST', '/api/admin/agents', { Name: 'scripts' });
    agent = capture(
      spawn(process.execPath, [path.join(REPO_ROOT, 'apps/agent/dist/main.js'), 'run'], {
        cwd: REPO_ROOT,
        env: cleanEnv(['POSTERN_'], {
          POSTERN_AGENT_SERVER_URL: server.url,
          POSTERN_AGENT_TOKEN: created.Token,
          POSTERN_AGENT_STATE_FILE: stateFile,
          POSTERN_AGENT_SCRIPTS_ENABLED: 'true',
          POSTERN_AGENT_SCRIPTS_DIR: scripts,
          POSTERN_AGENT_HEARTBEAT_SECONDS: '5',
          POSTERN_AGENT_LOG_LEVEL: 'warn',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    await waitFor(
      async () => {
        const seen = await admin.call<{ Online: boolean; Capabilities: unknown }>(
          'GET',
          `/api/admin/agents/${created.ID}`,
        );
        return seen.Online && seen.Capabilities !== null;
      },
      'the agent to connect and report its capabilities',
      20_000,
    );
    const backend = await admin.call<{ ID: string }>('POST', '/api/admin/backends', {
      Name: 'notify script',
      AgentID: created.ID,
      Config: {
        script: { Command: 'record.sh', EnvVars: [{ Name: 'RECORD_DIR' }, { Name: 'API_KEY', Sensitive: true }] },
      },
    });
    aclId = (
      await admin.call<{ ID: string }>('POST', '/api/admin/acls', {
        Description: 'Lab firewall',
        BackendID: backend.ID,
        Config: {
          script: {
            Name: 'lab_fw',
            EnvVars: [
              { Name: 'RECORD_DIR', Value: records },
              { Name: 'API_KEY', Value: SECRET, Sensitive: true },
            ],
          },
        },
      })
    ).ID;
    const password = 'correct horse battery staple';
    const alice = (await admin.createLocalUser('alice', password, { TOTPEnabled: false, Duration: 480 })) as {
      User: { ID: string };
    };
    await admin.call('POST', '/api/admin/groups', {
      Name: 'lab users',
      Type: 'local',
      ACLIDs: [aclId],
      UserIDs: [alice.User.ID],
    });
    const login = await fetch(`${server.url}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': USER_IP },
      body: JSON.stringify({ UserName: 'alice', Password: password, KioskMode: false }),
    });
    if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
    const cookie = login.headers.getSetCookie().find((value) => value.startsWith('__Host-postern_session='));
    userCookie = cookie?.split(';')[0] ?? '';
  }, 90_000);

  afterAll(async () => {
    if (agent?.child.pid !== undefined) {
      try {
        process.kill(agent.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await agent.finished.catch(() => undefined);
    }
    await server?.stop();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  beforeEach((context) => requireTool(context, missing));

  it('runs the script with the value while the store, the state file and the API never hold it in plain text', async () => {
    const granted = await fetch(`${server?.url}/api/grant`, {
      method: 'POST',
      headers: { cookie: userCookie, 'x-forwarded-for': USER_IP, 'content-type': 'application/json' },
      body: JSON.stringify({ ACLID: aclId, IPs: [] }),
    });
    expect(granted.status, await granted.text()).toBe(200);
    // The shell creates the file before env writes to it: wait for the whole API_KEY line, not the file.
    const record = () => {
      const [first] = readdirSync(records);
      return first === undefined ? '' : readFileSync(path.join(records, first), 'utf8');
    };
    await waitFor(() => /^API_KEY=.*\n/m.test(record()), 'the script to record API_KEY', 20_000);
    const environment = record();
    expect(environment).toContain(`API_KEY=${SECRET}`);

    // The admin API reads it back as RECORDED.
    const knoc = await admin.call<{ AclConfig: unknown }>('GET', `/api/admin/acls/${aclId}`);
    expect(JSON.stringify(knoc)).not.toContain(SECRET);
    expect(JSON.stringify(knoc)).toContain('RECORDED');
    // The store holds it sealed to the agent, never in plain text (database and journal files).
    const store = everyByteUnder(dataDir);
    expect(store).toContain('sealed:v1:');
    expect(store).not.toContain(SECRET);
    // So does the agent's state file.
    await waitFor(() => readFileSync(stateFile, 'utf8').includes('sealed:v1:'), 'the state file', 10_000);
    expect(readFileSync(stateFile, 'utf8')).not.toContain(SECRET);
    expect(agent?.stdout() ?? '').not.toContain(SECRET);
    expect(agent?.stderr() ?? '').not.toContain(SECRET);
  });
});
