import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient } from '../test-support/admin-client.js';
import { loadSqliteDriver } from '../store/sqlite-driver.js';
import { SQLITE_LOCK_WAIT_MS } from '../store/store.js';

/** How much longer than the lock wait a refused write may take: generous, but far below a stalled server's. */
const PROMPT_MS = 500;

describe('the API while another process holds the SQLite write lock', () => {
  const t = useTestApp('sqlite');
  /** Stands for an operator's sqlite3 shell holding a transaction open. */
  let outside: BetterSqlite3.Database;
  let admin: AdminClient;

  beforeEach(async () => {
    admin = adminClient(t.app, await givenAdminSession(t));
    // createTestStore keeps the SQLite file in the data directory under this name.
    outside = new (loadSqliteDriver())(path.join(t.ctx.config.dataDir, 'postern.db'));
  });
  afterEach(() => {
    if (outside.inTransaction) outside.exec('rollback');
    outside.close();
  });

  const createGroup = (name: string) => admin.post('/api/admin/groups', { Name: name, Type: 'local' });
  const timed = async <T>(work: Promise<T>) => {
    const started = performance.now();
    const result = await work;
    return { result, ms: performance.now() - started };
  };

  it('answers GET /api/system_status promptly while a write waits, and the write 503 with Retry-After', async () => {
    outside.exec('begin exclusive');
    let writeAnswered = false;
    const write = timed(createGroup('During the lock')).finally(() => (writeAnswered = true));
    const read = await t.app.inject({ method: 'GET', url: '/api/system_status' });

    expect(read.statusCode, read.body).toBe(200);
    // Promptly: the read is answered while the write still waits for the lock, not after it.
    expect(writeAnswered).toBe(false);
    const refused = await write;
    expect(refused.result.status).toBe(503);
    expect(refused.result.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused.result.body).toEqual({ Err: ErrorCodes.storeUnavailable });
    expect(refused.ms).toBeLessThan(SQLITE_LOCK_WAIT_MS + PROMPT_MS);
  });

  it('takes the write once the lock is released', async () => {
    outside.exec('begin exclusive');
    expect((await createGroup('During the lock')).status).toBe(503);
    outside.exec('rollback');

    const created = await createGroup('After the lock');
    expect(created.status, created.response.body).toBe(200);
    const list = await admin.get<{ data: { Name: string }[] }>('/api/admin/groups');
    expect(list.body.data.map((group) => group.Name)).toEqual(['After the lock']);
  });
});
