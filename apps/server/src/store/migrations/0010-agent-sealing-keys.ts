import type { Kysely } from 'kysely';

/**
 * Vendor credentials and sensitive script variables are sealed to the agent that uses them: the
 * agent registers an X25519 public key (signed by its identity key) and the server seals those
 * secrets to it, so neither the store nor the server's key can open them afterwards. Null until the
 * agent sends one (agents older than sealing never do), and again after the token is rotated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // X25519 SubjectPublicKeyInfo DER, base64url, exactly as the agent sent it.
  await db.schema.alterTable('agents').addColumn('sealing_key', 'text').execute();
  await db.schema.alterTable('agents').addColumn('sealing_key_registered_at', 'bigint').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('agents').dropColumn('sealing_key_registered_at').execute();
  await db.schema.alterTable('agents').dropColumn('sealing_key').execute();
}
