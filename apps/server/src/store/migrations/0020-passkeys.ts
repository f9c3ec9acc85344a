import type { Kysely } from 'kysely';

/**
 * Passkeys (WebAuthn, issue 34) for users and admins whose factors Postern checks.
 *
 * - `passkeys`: one row per registered credential. `realm` says whether `account_id` is a user's or
 *   an admin's id (one table for both, so the two realms cannot drift apart); the accounts' delete
 *   removes their rows (users.repo.ts, admins.repo.ts), as no single foreign key can name either
 *   table. `credential_id` is unique per realm: an authenticator never holds one credential for two
 *   accounts of a realm. `rp_id` is the RP ID the credential was made for; it is not honoured under
 *   another.
 * - `webauthn_ceremonies`: each challenge handed out and not yet answered, under the SHA-256 of a
 *   random handle, so that any replica can verify the answer and each is answered once (the verify
 *   deletes it, whatever the outcome). `rp_id` and `origin` are what the options promised.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('realm', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    // base64url, as WebAuthn's JSON forms write it.
    .addColumn('credential_id', 'text', (c) => c.notNull())
    // The COSE public key, base64url.
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull())
    // JSON array of the transports the browser reported.
    .addColumn('transports', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rp_id', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'boolean', (c) => c.notNull())
    .addColumn('discoverable', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('passkeys_realm_credential_id')
    .on('passkeys')
    .columns(['realm', 'credential_id'])
    .unique()
    .execute();
  await db.schema.createIndex('passkeys_realm_account_id').on('passkeys').columns(['realm', 'account_id']).execute();

  await db.schema
    .createTable('webauthn_ceremonies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('realm', 'text', (c) => c.notNull())
    // 'register', 'second-factor' or 'passwordless'.
    .addColumn('purpose', 'text', (c) => c.notNull())
    // The session (pending or active) the ceremony belongs to; null for a passwordless sign-in.
    .addColumn('session_id', 'text')
    .addColumn('account_id', 'text')
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('rp_id', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webauthn_ceremonies_expires_at')
    .on('webauthn_ceremonies')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webauthn_ceremonies').execute();
  await db.schema.dropTable('passkeys').execute();
}
