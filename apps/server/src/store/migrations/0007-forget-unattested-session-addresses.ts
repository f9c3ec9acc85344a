import { sql, type Kysely } from 'kysely';

/**
 * Addresses browsers reported for their sessions (session_ips) were stored without proof that the
 * browser uses them; from now on each needs the discovery responder's attestation. The ones already
 * stored would keep opening CGNATOpen knocs for the rest of their sessions, so they are forgotten:
 * a browser still on the dashboard reports its addresses again, attested, within seconds.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`delete from session_ips`.execute(db);
}

/** Nothing to restore: the rows were unproven, and the table keeps its shape. */
export async function down(): Promise<void> {}
