import type { Kysely } from 'kysely';

/**
 * "Test this knoc" asks the agent to read its device back after applying the test grant's entry:
 * `verify` marks the grants whose entry asks for it (only test grants; every other grant leaves it
 * false and costs the agent no listing), and `read_back` keeps what the agent found there
 * (`held`, `absent`, `unreadable`), null until it reported; `read_back_detail` says why a device
 * could not be read.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('grants')
    .addColumn('verify', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db.schema.alterTable('grants').addColumn('read_back', 'text').execute();
  await db.schema
    .alterTable('grants')
    .addColumn('read_back_detail', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of ['read_back_detail', 'read_back', 'verify']) {
    await db.schema.alterTable('grants').dropColumn(column).execute();
  }
}
