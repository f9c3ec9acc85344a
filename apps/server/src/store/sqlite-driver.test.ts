import { describe, expect, it } from 'vitest';
import { loadSqliteDriver } from './sqlite-driver.js';

describe('the SQLite driver', () => {
  it('uses the Node-API build (13.x) on Node 22 and later, and 12.x on Node 20', () => {
    expect(loadSqliteDriver('24.21.0')).toBe(loadSqliteDriver('22.23.3'));
    expect(loadSqliteDriver('20.19.0')).not.toBe(loadSqliteDriver('24.21.0'));
  });

  it('opens a working database on this Node.js', () => {
    const Database = loadSqliteDriver();
    const db = new Database(':memory:');
    const row = db.prepare('select sqlite_version() as version').get() as { version: string };
    expect(row.version).toMatch(/^3\.\d+\.\d+$/);
    db.close();
  });
});
