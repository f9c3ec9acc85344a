import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { migrateToLatest } from '../store/migrate.js';
import { openStore, type Store } from '../store/store.js';

const execFileAsync = promisify(execFile);

/**
 * Migrated PostgreSQL test schemas, made by replaying a dump of one migrated template instead of
 * running the migrations in every test's schema: about 70 ms a schema instead of about 180, and the
 * server tests make a thousand of them. The template is migrated by migrateToLatest once per test
 * file (vitest loads this module afresh for each) and dumped with pg_dump (schema and rows: the
 * migrations table, the seeded settings), so the replay is what the migrations made. Without a
 * working pg_dump every schema is migrated.
 */

/** The dump, with the template's schema name left as this marker to be replaced. */
const MARKER = `postern_template_${randomBytes(6).toString('hex')}`;
let dump: Promise<string | null> | undefined;

/**
 * Creates `schema` on `admin`'s database as the template's dump, migrated to the latest version.
 * False, and nothing created, when there is no dump: the caller creates and migrates it.
 */
export async function replayMigratedSchema(admin: Store, url: string, schema: string): Promise<boolean> {
  const text = await (dump ??= dumpMigratedTemplate(admin, url));
  if (text === null) return false;
  await sql.raw(text.replaceAll(MARKER, schema)).execute(admin.db);
  return true;
}

async function dumpMigratedTemplate(admin: Store, url: string): Promise<string | null> {
  await sql`create schema ${sql.id(MARKER)}`.execute(admin.db);
  try {
    const template = await openStore({ kind: 'postgres', url }, { postgresSchema: MARKER });
    try {
      await migrateToLatest(template.db);
    } finally {
      await template.close();
    }
    const { stdout } = await execFileAsync(
      'pg_dump',
      ['--no-owner', '--no-privileges', '--inserts', `--schema=${MARKER}`, `--dbname=${url}`],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    return replayable(stdout);
  } catch {
    return null;
  } finally {
    await sql`drop schema ${sql.id(MARKER)} cascade`.execute(admin.db);
  }
}

/**
 * pg_dump's plain output as one statement batch for the simple query protocol, in a transaction whose
 * settings (search path, timeouts) end with it: comments and psql's backslash commands dropped.
 */
function replayable(output: string): string {
  const statements = output
    .split('\n')
    .filter((line) => !line.startsWith('--') && !line.startsWith('\\'))
    .join('\n')
    .replace(/^SET (?!LOCAL )/gm, 'SET LOCAL ')
    .replaceAll("set_config('search_path', '', false)", "set_config('search_path', '', true)");
  return `begin;\n${statements}\ncommit;`;
}
