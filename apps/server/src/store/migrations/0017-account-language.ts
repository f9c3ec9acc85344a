import type { Kysely } from 'kysely';

/**
 * An account's chosen language (`en`, `de`), kept on the server so the choice follows the person to
 * every browser; null until they choose, and the browser's language decides meanwhile.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['users', 'admins']) {
    await db.schema.alterTable(table).addColumn('language', 'text').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['admins', 'users']) {
    await db.schema.alterTable(table).dropColumn('language').execute();
  }
}
