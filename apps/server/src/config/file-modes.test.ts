import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { sql } from 'kysely';
import { openStore } from '../store/store.js';
import { takeProcessLock } from '../store/single-process-lock.js';
import { createSecretKeyFile, secretKeyFilePath } from '../secrets/secret-key.js';
import { backupSqlite } from '../backup/sqlite-backup.js';
import { appendTrustedKey } from '../licence/licence-keys.js';
import { buildCli } from '../cli/cli.js';
import { openPreparedStore } from '../server.js';
import type { PosternConfig } from './config.js';
import { createPrivateFileIfMissing, looseFileWarnings, writePrivateFile } from './private-files.js';

function modeOf(file: string): string {
  return (statSync(file).mode & 0o777).toString(8);
}

/** The mode of every file in `dir`, by name. */
function modesIn(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((name) => [name, modeOf(path.join(dir, name))]));
}

/**
 * Every file Postern writes under the data directory (and its backups and signing keys) is 0600,
 * whatever the umask: run with umask 000, where a file created with the default mode comes out 0666.
 */
describe('file modes', () => {
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'postern-modes-'));
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the SQLite store, its WAL and shared-memory file 0600, and the WAL again after a checkpoint removed it', async () => {
    const file = path.join(dir, 'postern.db');
    const store = await openStore({ kind: 'sqlite', file });
    await sql`create table probe (id integer)`.execute(store.db);
    await sql`insert into probe values (1)`.execute(store.db);
    expect(modesIn(dir)).toEqual({ 'postern.db': '600', 'postern.db-wal': '600', 'postern.db-shm': '600' });
    await store.close();
    // The last connection checkpointed and removed the WAL; the next one makes it afresh.
    expect(existsSync(`${file}-wal`)).toBe(false);

    const again = await openStore({ kind: 'sqlite', file });
    await sql`pragma wal_checkpoint(truncate)`.execute(again.db);
    await sql`insert into probe values (2)`.execute(again.db);
    expect(modesIn(dir)).toEqual({ 'postern.db': '600', 'postern.db-wal': '600', 'postern.db-shm': '600' });
    await again.close();
  });

  it('creates the single-process lock and its pid file 0600, and makes a looser pid file private', () => {
    writeFileSync(path.join(dir, 'postern.pid'), '1\n', { mode: 0o644 });
    const lock = takeProcessLock(dir, 'serve');
    try {
      expect(modesIn(dir)).toEqual({ 'postern.lock': '600', 'postern.lock-journal': '600', 'postern.pid': '600' });
    } finally {
      lock.release();
    }
  });

  it('creates the secret key file and the trusted licence keys file 0600', () => {
    createSecretKeyFile(secretKeyFilePath(dir));
    const trusted = appendTrustedKey(dir, 'MCowBQYDK2VwAyEAu0yUDHSQlbV7CCsA9UgE2JTlzLSZNsEtjVSx5UHwPk0=', 'test');
    expect(modeOf(secretKeyFilePath(dir))).toBe('600');
    expect(modeOf(trusted)).toBe('600');
  });

  it('creates a backup 0600', async () => {
    const file = path.join(dir, 'postern.db');
    const store = await openStore({ kind: 'sqlite', file });
    await sql`create table probe (id integer)`.execute(store.db);
    const target = path.join(dir, 'backups-elsewhere.db');
    try {
      await backupSqlite(file, target);
    } finally {
      await store.close();
    }
    expect(modeOf(target)).toBe('600');
    expect(readdirSync(dir).filter((name) => name.startsWith('backups-elsewhere'))).toEqual(['backups-elsewhere.db']);
  });

  it('writes the licence signing key of postern licence keygen 0600', async () => {
    const key = path.join(dir, 'signing.pem');
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (text: string) => written.push(text) > 0;
    try {
      await buildCli().parseAsync(['node', 'postern', 'licence', 'keygen', '--out', key, '--no-trust']);
    } finally {
      process.stdout.write = write;
    }
    expect(written.join('')).toContain('mode 600');
    expect(modeOf(key)).toBe('600');
  });

  it('creates a private file only when it is missing, and keeps an existing one as it is', () => {
    const fresh = path.join(dir, 'fresh');
    const existing = path.join(dir, 'existing');
    writeFileSync(existing, 'kept', { mode: 0o640 });
    createPrivateFileIfMissing(fresh);
    createPrivateFileIfMissing(existing);
    expect(modesIn(dir)).toEqual({ fresh: '600', existing: '640' });

    writePrivateFile(existing, 'replaced');
    expect(modeOf(existing)).toBe('600');
  });
});

describe('warnings about looser files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'postern-loose-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('names each file others may read, with its mode and the command that fixes it', () => {
    for (const [name, mode] of [
      ['postern.db', 0o644],
      ['secret.key', 0o600],
      ['postern.db-wal', 0o660],
    ] as const) {
      writeFileSync(path.join(dir, name), '');
      chmodSync(path.join(dir, name), mode);
    }
    const file = path.join(dir, 'postern.db');
    const wal = path.join(dir, 'postern.db-wal');
    expect(looseFileWarnings(dir)).toEqual([
      {
        file,
        mode: '644',
        message: `${file} has mode 644; others on this host may read it (the store holds password hashes and sealed secrets): run chmod 600 ${file}`,
      },
      { file: wal, mode: '660', message: expect.stringContaining(`run chmod 600 ${wal}`) as string },
    ]);
  });

  it('logs one warning per looser file when the store is opened, and none for private ones', async () => {
    const config = {
      dataDir: dir,
      store: { kind: 'sqlite', file: path.join(dir, 'postern.db') },
    } as const satisfies Pick<PosternConfig, 'dataDir' | 'store'>;
    // Made by an older release: world-readable.
    const first = await openPreparedStore(config as PosternConfig, pino({ level: 'silent' }));
    await first.close();
    chmodSync(config.store.file, 0o644);

    const lines: { level: number; msg: string; file?: string; mode?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line) as never) });
    const store = await openPreparedStore(config as PosternConfig, logger);
    await store.close();

    // The WAL and shared-memory file the opening made take the store file's mode: each is named.
    expect(lines.map((line) => [path.basename(line.file ?? ''), line.mode])).toEqual([
      ['postern.db', '644'],
      ['postern.db-shm', '644'],
      ['postern.db-wal', '644'],
    ]);
    expect(lines[0]?.msg).toContain(`run chmod 600 ${config.store.file}`);
  });
});
