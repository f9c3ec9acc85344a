import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { SecretBox, SecretContext } from '../secrets/secret-box.js';

/** Users and admins keep their second factor in the same columns. */
export type TotpTable = 'users' | 'admins';

/** Where an account's sealed TOTP secret lives, bound into its ciphertext. */
export function totpSecretContext(
  table: TotpTable,
  column: 'totp_secret' | 'totp_pending_secret',
  rowId: string,
): SecretContext {
  return { table, column, rowId };
}

/** Seals and stores a secret being enrolled; the confirmed one (if any) is untouched. */
export async function storePendingSecret(
  db: Kysely<Database>,
  secrets: SecretBox,
  table: TotpTable,
  id: string,
  secret: string,
): Promise<void> {
  const sealed = secrets.seal(secret, totpSecretContext(table, 'totp_pending_secret', id));
  await db.updateTable(table).set({ totpPendingSecret: sealed }).where('id', '=', id).execute();
}

export function openPendingSecret(secrets: SecretBox, table: TotpTable, id: string, sealed: string): string {
  return secrets.open(sealed, totpSecretContext(table, 'totp_pending_secret', id));
}

export function openSecret(secrets: SecretBox, table: TotpTable, id: string, sealed: string): string {
  return secrets.open(sealed, totpSecretContext(table, 'totp_secret', id));
}

/** Makes the enrolled secret the account's second factor, with the step of the code that proved it. */
export async function confirmEnrolment(
  db: Kysely<Database>,
  secrets: SecretBox,
  table: TotpTable,
  id: string,
  secret: string,
  step: number,
): Promise<void> {
  await db
    .updateTable(table)
    .set({
      totpSecret: secrets.seal(secret, totpSecretContext(table, 'totp_secret', id)),
      totpPendingSecret: null,
      totpVerified: true,
      totpLastStep: step,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Records that the code of `step` was used. Only one of two concurrent requests with the same code
 * can move the step forward, so a code is accepted once even across replicas.
 */
export async function claimStep(db: Kysely<Database>, table: TotpTable, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable(table)
    .set({ totpLastStep: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totpLastStep', 'is', null), eb('totpLastStep', '<', step)]))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Forgets the account's authenticator; it must enrol again at its next sign-in. */
export async function resetTotp(db: Kysely<Database>, table: TotpTable, id: string, now: number): Promise<void> {
  await db
    .updateTable(table)
    .set({ totpSecret: null, totpPendingSecret: null, totpVerified: false, totpLastStep: null, updatedAt: now })
    .where('id', '=', id)
    .execute();
}
