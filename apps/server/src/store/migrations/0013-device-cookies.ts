import type { Kysely } from 'kysely';

/**
 * Device cookies (auth/device-cookie.ts): a browser that passed an account's password step carries a
 * signed cookie that gives it a sign-in budget of its own. This instant revokes them: a device cookie
 * issued at or before it is not honoured. A password change and an administrator ending all sessions
 * move it to now; 0 (the default) revokes nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['users', 'admins']) {
    await db.schema
      .alterTable(table)
      .addColumn('device_cookies_valid_after', 'bigint', (column) => column.notNull().defaultTo(0))
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['admins', 'users']) {
    await db.schema.alterTable(table).dropColumn('device_cookies_valid_after').execute();
  }
}
