import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { ErrorCodes } from '@postern/protocol';
import { createTestApp, type TestApp } from '../test-support/test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { signInAdmin } from '../test-support/http.js';
import { loadSqliteDriver } from '../store/sqlite-driver.js';
import { SQLITE_LOCK_WAIT_MS } from '../store/store.js';

/** How long an answer may take while the lock is held: generous, but far below a stalled server's. */
const PROMPT_MS = 500;

describe('the API while another process holds the SQLite write lock', () => {
  let t: TestApp;
  /** Stands for an operator's sqlite3 shell holding a transaction open. */
  let outside: BetterSqlite3.Database;
  let cookie: string;

  beforeEach(async () => {
    t = await createTestApp('sqlite');
    const admin = await givenAdmin(t.ctx, { userName: 'ops' });
    cookie = await signInAdmin(t.app, 'ops', admin.password);
    // createTestStore keeps the SQLite file in the data directory under this name.
    outside = new (loadSqliteDriver())(path.join(t.ctx.config.dataDir, 'postern.db'));
  });
  afterEach(async () => {
    if (outside.inTransaction) outside.exec('rollback');
    outside.close();
    await t.close();
  });

  const createGroup = (name: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/groups',
      headers: { cookie },
      payload: { Name: name, Type: 'local' },
    });
  const timed = async <T>(work: Promise<T>) => {
    const started = performance.now();
    const result = await work;
    return { result, ms: performance.now() - started };
  };

  it('answers GET /api/system_status promptly while a write waits, and the write 503 with Retry-After', async () => {
    outside.exec('begin exclusive');
    const write = timed(createGroup('During the lock'));
    const read = await timed(t.app.inject({ method: 'GET', url: '/api/system_status' }));

    expect(read.result.statusCode, read.result.body).toBe(200);
    expect(read.ms).toBeLessThan(PROMPT_MS);
    const refused = await write;
    expect(refused.result.statusCode).toBe(503);
    expect(refused.result.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(refused.result.json()).toEqual({ Err: ErrorCodes.storeUnavailable });
    expect(refused.ms).toBeLessThan(SQLITE_LOCK_WAIT_MS + PROMPT_MS);
  });

  it('takes the write once the lock is released', async () => {
    outside.exec('begin exclusive');
    expect((await createGroup('During the lock')).statusCode).toBe(503);
    outside.exec('rollback');

    const created = await createGroup('After the lock');
    expect(created.statusCode, created.body).toBe(200);
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/groups', headers: { cookie } });
    expect(list.json<{ data: { Name: string }[] }>().data.map((group) => group.Name)).toEqual(['After the lock']);
  });
});
