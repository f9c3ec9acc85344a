import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import type { Store } from '../store/store.js';
import { POSTGRES_APPLICATION_NAME } from '../store/store.js';
import { BackupError, createPrivateFile, requireReadableFile } from './backup-file.js';

/**
 * PostgreSQL stores are copied by PostgreSQL's own tools: pg_dump in its custom format (one
 * consistent snapshot, however busy the servers are), and pg_restore. Only Postern's schema (the one
 * the URL's search path resolves to) is copied; it must hold Postern's tables alone.
 */

/** libpq takes the URL as it is, except the password: that goes in PGPASSWORD, not on a command line others can list. */
function libpqConnection(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return { url: parsed.toString(), env: { ...process.env, ...(password === '' ? {} : { PGPASSWORD: password }) } };
}

export async function backupPostgres(store: Store, url: string, target: string): Promise<void> {
  const schema = await currentSchema(store);
  createPrivateFile(target);
  const connection = libpqConnection(url);
  try {
    await runTool(
      'pg_dump',
      ['--format=custom', '--no-owner', '--no-privileges', `--schema=${schema}`, `--file=${target}`, connection.url],
      connection.env,
    );
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  }
}

/**
 * Replaces Postern's schema with the backup's, in one transaction: psql runs the drop of the schema
 * (tables a newer release added included) followed by pg_restore's script, and any error undoes all.
 * Refuses while Postern servers are connected, unless `force`.
 */
export async function restorePostgres(
  store: Store,
  url: string,
  backupFile: string,
  options: { force: boolean },
): Promise<void> {
  requireReadableFile(backupFile);
  if (!options.force) await refuseWhileServersConnected(store);
  const schema = await currentSchema(store);
  const connection = libpqConnection(url);
  // Proves the file is a pg_dump archive before anything is dropped.
  await runTool('pg_restore', ['--list', backupFile], connection.env).catch(() => {
    throw new BackupError(`${backupFile} is not a pg_dump custom-format backup`);
  });
  const drop = `drop schema if exists ${quoteIdentifier(schema)} cascade;\n`;
  await runTool(
    'psql',
    ['--no-psqlrc', '--quiet', '--single-transaction', '--set=ON_ERROR_STOP=1', `--dbname=${connection.url}`],
    connection.env,
    {
      input: drop,
      then: ['pg_restore', ['--clean', '--if-exists', '--no-owner', '--no-privileges', '--file=-', backupFile]],
    },
  );
}

async function refuseWhileServersConnected(store: Store): Promise<void> {
  const result = await sql<{ servers: number }>`
    select count(*)::int as servers from pg_stat_activity
    where datname = current_database() and application_name like ${`${POSTGRES_APPLICATION_NAME}-%`} and application_name <> ${store.replicaId}`.execute(
    store.db,
  );
  const servers = result.rows[0]?.servers ?? 0;
  if (servers > 0) {
    throw new BackupError(
      `${servers} connection(s) of running Postern servers are open on ${store.description}; ` +
        'stop every server first (or pass --force)',
    );
  }
}

async function currentSchema(store: Store): Promise<string> {
  const result = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(store.db);
  const schema = result.rows[0]?.schema ?? null;
  if (schema === null) throw new BackupError(`${store.description} has no schema on its search path`);
  return schema;
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Runs a PostgreSQL client tool; fails with its last line of errors. `feed`: text for its standard
 * input, followed by the output of another tool.
 */
function runTool(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  feed?: { input: string; then: [string, string[]] },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: [feed === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let feederFailure: string | null = null;
    if (feed !== undefined && child.stdin !== null) {
      const stdin = child.stdin;
      // A psql that ended early closes its input; its exit code says why, not this write's EPIPE.
      stdin.on('error', () => undefined);
      stdin.write(feed.input);
      const [feedCommand, feedArgs] = feed.then;
      const feeder = spawn(feedCommand, feedArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
      feeder.on('error', (error) => {
        child.kill('SIGTERM');
        reject(missingTool(feedCommand, error));
      });
      let feederErr = '';
      feeder.stderr?.setEncoding('utf8').on('data', (chunk: string) => (feederErr += chunk));
      // psql commits what it was given when its input ends: it is ended only after the feeder
      // succeeded, and stopped (its transaction rolled back) when the feeder failed.
      feeder.on('close', (code) => {
        if (code === 0) {
          stdin.end();
          return;
        }
        feederFailure = `${feedCommand} failed: ${lastLine(feederErr)}`;
        child.kill('SIGTERM');
      });
      feeder.stdout?.pipe(stdin, { end: false });
    }
    child.on('error', (error) => reject(missingTool(command, error)));
    child.on('close', (code) => {
      if (feederFailure !== null) reject(new BackupError(feederFailure));
      else if (code === 0) resolve();
      else reject(new BackupError(`${command} failed: ${lastLine(stderr)}`));
    });
  });
}

function missingTool(command: string, error: Error): BackupError {
  if ('code' in error && error.code === 'ENOENT') {
    return new BackupError(
      `${command} was not found; install the PostgreSQL client tools (Debian: apt install postgresql-client) ` +
        'of the same or a newer major version than the server',
    );
  }
  return new BackupError(`${command} could not run (${error.message})`);
}

function lastLine(text: string): string {
  const lines = text
    .trim()
    .split('\n')
    .filter((line) => line.trim() !== '');
  return lines.at(-1) ?? 'no message';
}
