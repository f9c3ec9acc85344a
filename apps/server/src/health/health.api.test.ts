import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-context.js';
import { buildApp } from '../app.js';
import { createTestStore } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import type { Database } from '../store/schema.js';
import { migrateTo } from '../store/migrate.js';
import { MIGRATION_NAMES } from '../store/migrations/index.js';

const NO_WEB_APP = {
  dir: path.join(tmpdir(), 'postern-test-no-web-app'),
  current: () => ({ indexHtml: null, bundleHash: 'test-bundle' }),
};

/** The same app on another store: what a replica sees when its store is in that state. */
function appOn(ctx: AppContext, db: Kysely<Database>): Promise<FastifyInstance> {
  return buildApp({ ...ctx, db }, NO_WEB_APP);
}

describe.each(bothStores())('health endpoints (%s)', (kind) => {
  const t = useTestApp(kind);
  const others: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const other of others.splice(0)) await other.close();
  });

  it('answers /healthz and /readyz with 200 on a migrated store, without a session', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json()).toEqual({ data: { Status: 'ok' } });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(200);
    expect(ready.json()).toEqual({ data: { Status: 'ready', Clock: 'ok' } });
  });

  it('is not ready while a migration is pending, and says which', async () => {
    const older = await createTestStore(kind, { migrate: false });
    others.push({ close: () => older.dispose() });
    const previous = MIGRATION_NAMES.at(-2) ?? '';
    await migrateTo(older.store.db, previous);
    const app = await appOn(t.ctx, older.store.db);
    others.unshift(app);

    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(503);
    expect(ready.json()).toEqual({
      Err: ErrorCodes.storeUnavailable,
      Extra: `migrations pending: ${MIGRATION_NAMES.at(-1) ?? ''}`,
    });
    // Liveness does not depend on the store: the process is fine, it must not be restarted.
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('is not ready when the store has closed under it', async () => {
    const gone = await createTestStore(kind);
    await gone.store.close();
    const app = await appOn(t.ctx, gone.store.db);
    others.push(app, { close: () => gone.dispose().catch(() => undefined) });

    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode, ready.body).toBe(503);
    expect(ready.json()).toEqual({ Err: ErrorCodes.storeUnavailable, Extra: 'store unreachable' });
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('readiness with an unreachable PostgreSQL server', () => {
  const t = useTestApp('sqlite');
  it('answers 503 (connection refused), and liveness still 200', async () => {
    // Port 1 on loopback: nothing listens, so every connection is refused.
    const unreachable = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ host: '127.0.0.1', port: 1, user: 'postern' }) }),
    });
    const app = await appOn(t.ctx, unreachable);
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(503);
      expect(ready.json()).toEqual({ Err: ErrorCodes.storeUnavailable, Extra: 'store unreachable' });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await unreachable.destroy();
    }
  });
});
