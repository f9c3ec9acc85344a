import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { capture, REPO_ROOT, type RunningProcess } from '@postern/test-support';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { AdminApi } from './support/admin-api.js';
import { missingBuild, requireTool } from './support/requirements.js';

/**
 * Issue 11 item 3 as an operator meets it: the built server runs on its embedded SQLite store while
 * another process (standing for a `sqlite3` shell left in a transaction, or a backup script) holds
 * the store's write lock for six seconds. Reads go on; writes are refused promptly with 503 and
 * Retry-After instead of freezing the server; once the lock is gone, writes work again.
 */

/** How long the other process holds the lock: longer than any write may wait for it. */
const LOCK_HELD_MS = 6_000;
/** A generous bound for an answer during the lock; a frozen server would take seconds. */
const PROMPT_MS = 1_500;

/**
 * A separate node process that takes the write lock with BEGIN EXCLUSIVE on the store file, says
 * "locked", holds it for argv[2] ms, rolls back and says "released". It loads better-sqlite3 the way
 * the server does: the Node-API build on Node 22 and later, 12.x on Node 20.
 */
const LOCKER = `
const major = Number(process.versions.node.split('.')[0]);
const Database = require(major >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('begin exclusive');
console.log('locked');
setTimeout(() => {
  db.exec('rollback');
  db.close();
  console.log('released');
}, Number(process.argv[2]));
`;

function holdLock(file: string, ms: number): RunningProcess {
  return capture(
    spawn(process.execPath, ['-e', LOCKER, file, String(ms)], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
}

describe('the built server while another process holds the SQLite write lock', () => {
  const missing = missingBuild(REPO_ROOT);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-store-lock-'));
  let server: PosternServer | undefined;
  let admin: AdminApi;
  let locker: RunningProcess | undefined;

  beforeAll(async () => {
    if (missing !== null) return;
    // Our own data directory, so the test knows where the store file is.
    server = await startPosternServer({ POSTERN_DATA_DIR: dataDir }, 'sqlite');
    admin = await AdminApi.signIn(server);
  });
  afterAll(async () => {
    await locker?.stop();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  beforeEach((context) => requireTool(context, missing));

  const url = (route: string) => `${server?.url ?? ''}${route}`;
  const timed = async (request: Promise<Response>) => {
    const started = performance.now();
    const response = await request;
    return { response, body: await response.text(), ms: performance.now() - started };
  };
  const createGroup = (name: string) =>
    admin.call('POST', '/api/admin/groups', { Name: name, Type: 'local' }).then(
      () => 200,
      (error: unknown) => Number(/answered (\d{3})/.exec(String(error))?.[1] ?? 0),
    );
  const readStatus = () => timed(fetch(url('/api/system_status')));

  it('keeps answering reads promptly, refuses writes with 503 and Retry-After, and writes again after', async () => {
    expect(await createGroup('Before the lock')).toBe(200);
    locker = holdLock(path.join(dataDir, 'postern.db'), LOCK_HELD_MS);
    await locker.waitForOutput(/locked/, 10_000);

    // Writes that wait for the lock, and reads between them.
    const writes = [1, 2, 3].map((n) =>
      timed(
        fetch(url('/api/admin/login'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ UserName: `nobody-${n}`, Password: 'not the password' }),
        }),
      ),
    );
    const reads = [];
    for (let n = 0; n < 3; n += 1) reads.push(await readStatus());
    const groupDuringLock = await createGroup('During the lock');

    for (const read of reads) {
      expect(read.response.status, read.body).toBe(200);
      expect(read.ms).toBeLessThan(PROMPT_MS);
    }
    expect(groupDuringLock).toBe(503);
    for (const write of await Promise.all(writes)) {
      expect(write.response.status, write.body).toBe(503);
      expect(write.response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(JSON.parse(write.body)).toEqual({ Err: 'err.storeUnavailable' });
      expect(write.ms).toBeLessThan(PROMPT_MS + 1_000);
    }
    expect(locker.stdout()).not.toMatch(/released/);

    await locker.waitForOutput(/released/, LOCK_HELD_MS + 5_000);
    expect(await createGroup('After the lock')).toBe(200);
    const groups = await admin.call<{ Name: string }[]>('GET', '/api/admin/groups');
    expect(groups.map((group) => group.Name).sort()).toEqual(['After the lock', 'Before the lock']);
    expect(server?.process.child.exitCode).toBeNull();
  });
});
