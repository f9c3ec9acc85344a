import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { ErrorCodes } from '@postern/protocol';
import { installErrorHandler } from '../http/error-handler.js';
import { isStoreOutOfResources, isStoreUnavailable, StoreBusyError, unavailability } from './store-unavailable.js';

/** An error as the drivers raise them: better-sqlite3's SqliteError and pg's DatabaseError carry `code`. */
function driverError(code: string): Error {
  return Object.assign(new Error(`driver said ${code}`), { code });
}

describe('store errors that mean "no room for writes"', () => {
  it.each([
    ['SQLite: database or disk is full', 'SQLITE_FULL'],
    ['SQLite: an I/O error', 'SQLITE_IOERR'],
    ['SQLite: a WAL write the file system refused', 'SQLITE_IOERR_WRITE'],
    ['SQLite: the shared-memory file could not grow', 'SQLITE_IOERR_SHMSIZE'],
    ['PostgreSQL: disk_full', '53100'],
    ['PostgreSQL: out_of_memory', '53200'],
    ['PostgreSQL: insufficient_resources', '53000'],
  ])('%s (%s) is unavailable, out of resources, and retried later', (_name, code) => {
    const error = driverError(code);
    expect(isStoreOutOfResources(error)).toBe(true);
    expect(isStoreUnavailable(error)).toBe(true);
    // Kysely and our own code may wrap the driver's error.
    expect(isStoreUnavailable(new Error('wrapped', { cause: error }))).toBe(true);
    expect(unavailability(error)).toBe('out of disk space or memory, or failing to write');
  });

  it.each([
    ['a unique violation', '23505'],
    ['a constraint failure', 'SQLITE_CONSTRAINT_UNIQUE'],
    ['a busy lock (unavailable, but not for want of room)', 'SQLITE_BUSY'],
    ['a refused connection (unavailable, but not for want of room)', 'ECONNREFUSED'],
    ['a configuration limit', '53400'],
  ])('%s (%s) is not out of resources', (_name, code) => {
    expect(isStoreOutOfResources(driverError(code))).toBe(false);
  });

  it('names the other kinds of unavailability for the log', () => {
    expect(unavailability(new StoreBusyError(1_000))).toBe('locked by another process');
    expect(unavailability(driverError('ECONNREFUSED'))).toBe('unreachable or overloaded');
  });

  it.each(['SQLITE_FULL', '53100', '53200'])(
    'is answered 503 err.storeUnavailable with Retry-After (%s)',
    async (code) => {
      const app = Fastify();
      installErrorHandler(app);
      app.post('/write', () => Promise.reject(driverError(code)));
      const answer = await app.inject({ method: 'POST', url: '/write' });
      await app.close();

      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe('5');
      expect(answer.json()).toEqual({ Err: ErrorCodes.storeUnavailable });
    },
  );
});
