import type { Kysely } from 'kysely';

/**
 * An agent's token becomes an enrolment credential: the agent registers the public key of a key
 * pair it made on its first connection and proves possession of the private key on every later
 * one. Both columns are null until the agent enrols, and again after the token is rotated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // Ed25519 SubjectPublicKeyInfo DER, base64url, exactly as the agent sent it.
  await db.schema.alterTable('agents').addColumn('public_key', 'text').execute();
  await db.schema.alterTable('agents').addColumn('enrolled_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('enrolled_at').execute();
  await db.schema.alterTable('agents').dropColumn('public_key').execute();
}
