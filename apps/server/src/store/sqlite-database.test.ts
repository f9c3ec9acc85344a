import { afterEach, describe, expect, it } from 'vitest';
import type BetterSqlite3 from 'better-sqlite3';
import { loadSqliteDriver } from './sqlite-driver.js';
import { kyselySqliteDatabase } from './sqlite-database.js';

describe('the SQLite database as Kysely sees it', () => {
  let raw: BetterSqlite3.Database;
  const open = (capacity?: number) => {
    const Database = loadSqliteDriver();
    raw = new Database(':memory:');
    return kyselySqliteDatabase(raw, capacity);
  };
  afterEach(() => {
    if (raw.open) raw.close();
  });

  it('hands out the same compiled statement for the same SQL', () => {
    const db = open();
    const first = db.prepare('select ? as value');
    expect(db.prepare('select ? as value')).toBe(first);
    expect(db.prepare('select ? + 1 as value')).not.toBe(first);
    expect(first.all([41])).toEqual([{ value: 41 }]);
  });

  it('binds booleans as 1 and 0, which better-sqlite3 alone refuses', () => {
    const db = open();
    expect(() => raw.prepare('select ? as value').all(true)).toThrow();
    expect(db.prepare('select ? as yes, ? as no').all([true, false])).toEqual([{ yes: 1, no: 0 }]);
    db.prepare('create table t (flag integer)').run([]);
    db.prepare('insert into t values (?)').run([true]);
    expect([...db.prepare('select flag from t where flag = ?').iterate([true])]).toEqual([{ flag: 1 }]);
  });

  it('keeps at most its capacity, dropping the least recently used', () => {
    const db = open(2);
    const a = db.prepare('select 1');
    const b = db.prepare('select 2');
    expect(db.prepare('select 1')).toBe(a); // now 'select 2' is the least recently used
    db.prepare('select 3');
    expect(db.prepare('select 1')).toBe(a);
    expect(db.prepare('select 2')).not.toBe(b);
  });

  it('gives a fresh statement while the kept one is still iterating', () => {
    const db = open();
    db.prepare('create table t (n integer)').run([]);
    db.prepare('insert into t values (1), (2)').run([]);
    const streaming = db.prepare('select n from t');
    const iterator = streaming.iterate([]);
    iterator.next();
    const other = db.prepare('select n from t');
    expect(other).not.toBe(streaming);
    expect(other.all([])).toEqual([{ n: 1 }, { n: 2 }]);
    iterator.return?.();
  });

  it('keeps working after the schema changes under a kept statement', () => {
    const db = open();
    db.prepare('create table t (n integer)').run([]);
    const select = db.prepare('select * from t');
    expect(select.all([])).toEqual([]);
    db.prepare('alter table t add column m integer default 7').run([]);
    db.prepare('insert into t (n) values (1)').run([]);
    expect(db.prepare('select * from t').all([])).toEqual([{ n: 1, m: 7 }]);
  });

  it('tells whether a statement leaves the database unchanged, and whether a transaction is open', () => {
    const db = open();
    db.prepare('create table t (n integer)').run([]);
    expect(db.prepare('select n from t').readOnly).toBe(true);
    expect(db.prepare('insert into t values (1)').readOnly).toBe(false);
    expect(db.prepare('insert into t values (1) returning n').readOnly).toBe(false);
    expect(db.inTransaction).toBe(false);
    db.prepare('begin').run([]);
    expect(db.inTransaction).toBe(true);
    db.prepare('rollback').run([]);
    expect(db.inTransaction).toBe(false);
  });

  it('closes the database', () => {
    const db = open();
    db.close();
    expect(raw.open).toBe(false);
  });
});
