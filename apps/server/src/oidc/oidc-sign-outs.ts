import type { Kysely } from 'kysely';
import type { OidcRealm } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { Database } from '../store/schema.js';
import type { SealedValue, SecretContext } from '../secrets/secret-box.js';
import { hashSessionToken } from '../sessions/session-tokens.js';

/** Where a session's sealed logout URL lives, bound into its ciphertext. */
export function signOutSecretContext(sessionId: string): SecretContext {
  return { table: 'oidc_sign_outs', column: 'end_session_url', rowId: sessionId };
}

/**
 * Keeps, for a session just signed in through the provider, the provider's logout URL (with the ID
 * token as its hint), sealed, until the session's end.
 */
export async function rememberSignOut(
  trx: Kysely<Database>,
  ctx: Pick<AppContext, 'secrets'>,
  args: { sessionId: string; realm: OidcRealm; endSessionUrl: string; expiresAt: number },
): Promise<void> {
  await trx
    .insertInto('oidcSignOuts')
    .values({
      sessionId: args.sessionId,
      realm: args.realm,
      endSessionUrl: ctx.secrets.seal(args.endSessionUrl, signOutSecretContext(args.sessionId)),
      expiresAt: args.expiresAt,
    })
    .execute();
}

/**
 * The provider's logout URL for the session behind `token`, taken out of the store (a second logout
 * gets none), or null: a session not signed in through a provider with RP-initiated logout, or one
 * whose URL cannot be opened. Never throws: signing out here must not depend on it.
 */
export async function takeEndSessionUrl(ctx: AppContext, token: string, realm: OidcRealm): Promise<string | null> {
  try {
    const tokenHash = hashSessionToken(token);
    const session =
      realm === 'user'
        ? await ctx.db.selectFrom('userSessions').select('id').where('tokenHash', '=', tokenHash).executeTakeFirst()
        : await ctx.db.selectFrom('adminSessions').select('id').where('tokenHash', '=', tokenHash).executeTakeFirst();
    if (session === undefined) return null;
    const row = await ctx.db
      .deleteFrom('oidcSignOuts')
      .where('sessionId', '=', session.id)
      .where('realm', '=', realm)
      .returning('endSessionUrl')
      .executeTakeFirst();
    return row === undefined ? null : ctx.secrets.open(row.endSessionUrl, signOutSecretContext(session.id));
  } catch (error) {
    ctx.logger.warn({ err: error, realm }, 'the OpenID Connect logout URL of a session could not be read');
    return null;
  }
}

/** Every sealed logout URL, for the start-up key check (key-check/sealed-values.ts). */
export async function* sealedSignOuts(db: Kysely<Database>): AsyncGenerator<SealedValue> {
  const page = 500;
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('oidcSignOuts')
      .select(['sessionId', 'endSessionUrl'])
      .where('sessionId', '>', after)
      .orderBy('sessionId')
      .limit(page)
      .execute();
    for (const row of rows) yield { sealed: row.endSessionUrl, context: signOutSecretContext(row.sessionId) };
    const last = rows.at(-1);
    if (last === undefined || rows.length < page) return;
    after = last.sessionId;
  }
}
