import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { SealedValue } from '../secrets/secret-box.js';
import { totpSecretContext, type TotpTable } from '../sessions/totp-store.js';
import { agentTokenSecretContext } from '../agents/agent-token.js';
import { readSettings } from '../settings/settings.js';
import { SEALED_SETTINGS, sealedSettingContext } from '../settings/settings.service.js';
import { toBackendRow } from '../backends/backends.repo.js';
import { sealedBackendSecrets } from '../backends/backend-secrets.js';
import { toKnocRow } from '../knocs/knocs.repo.js';
import { sealedEnvVars } from '../knocs/knoc-config.js';
import { sealedSignOuts } from '../oidc/oidc-sign-outs.js';

/** Rows read at once while walking a table. */
const PAGE = 500;

/**
 * Every value the store holds sealed with the SecretBox, read a page at a time so a large store is
 * walked without loading it whole. The start-up key check uses it to learn whether the store holds
 * sealed data and whether the key opens it; each place is described by the module that seals there,
 * so the contexts cannot drift apart. A new sealed column belongs here too.
 */
export async function* sealedValuesInStore(db: Kysely<Database>): AsyncGenerator<SealedValue> {
  yield* sealedSettings(db);
  for (const table of ['admins', 'users'] as const) yield* sealedTotpSecrets(db, table);
  yield* sealedAgentTokens(db);
  yield* sealedBackendFields(db);
  yield* sealedKnocVariables(db);
  yield* sealedSignOuts(db);
}

/** Whether the store holds any sealed value. */
export async function storeHoldsSealedValues(db: Kysely<Database>): Promise<boolean> {
  for await (const _value of sealedValuesInStore(db)) return true;
  return false;
}

async function* sealedSettings(db: Kysely<Database>): AsyncGenerator<SealedValue> {
  const settings = await readSettings(db);
  for (const key of SEALED_SETTINGS) {
    const sealed = settings[key];
    if (typeof sealed === 'string' && sealed !== '') yield { sealed, context: sealedSettingContext(key) };
  }
}

async function* sealedTotpSecrets(db: Kysely<Database>, table: TotpTable): AsyncGenerator<SealedValue> {
  const rows = pagesById((after) =>
    db
      .selectFrom(table)
      .select(['id', 'totpSecret', 'totpPendingSecret'])
      .where((eb) => eb.or([eb('totpSecret', 'is not', null), eb('totpPendingSecret', 'is not', null)]))
      .where('id', '>', after)
      .orderBy('id')
      .limit(PAGE)
      .execute(),
  );
  for await (const row of rows) {
    if (row.totpSecret !== null) {
      yield { sealed: row.totpSecret, context: totpSecretContext(table, 'totp_secret', row.id) };
    }
    if (row.totpPendingSecret !== null) {
      yield { sealed: row.totpPendingSecret, context: totpSecretContext(table, 'totp_pending_secret', row.id) };
    }
  }
}

async function* sealedAgentTokens(db: Kysely<Database>): AsyncGenerator<SealedValue> {
  const rows = pagesById((after) =>
    db.selectFrom('agents').select(['id', 'tokenSecret']).where('id', '>', after).orderBy('id').limit(PAGE).execute(),
  );
  for await (const row of rows) yield { sealed: row.tokenSecret, context: agentTokenSecretContext(row.id) };
}

async function* sealedBackendFields(db: Kysely<Database>): AsyncGenerator<SealedValue> {
  const rows = pagesById((after) =>
    db.selectFrom('backends').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute(),
  );
  for await (const row of rows) {
    let backend;
    try {
      backend = toBackendRow(row);
    } catch {
      // A type this release does not know has no secret fields it could name.
      continue;
    }
    yield* sealedBackendSecrets(backend.type, backend.config, backend.id).values();
  }
}

async function* sealedKnocVariables(db: Kysely<Database>): AsyncGenerator<SealedValue> {
  const rows = pagesById((after) =>
    db.selectFrom('knocs').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute(),
  );
  for await (const row of rows) {
    const knoc = toKnocRow(row);
    yield* sealedEnvVars(knoc.id, knoc.config);
  }
}

/** The rows `page` returns, page after page: each page starts after the last id of the one before. */
async function* pagesById<Row extends { id: string }>(page: (after: string) => Promise<Row[]>): AsyncGenerator<Row> {
  let after = '';
  for (;;) {
    const rows = await page(after);
    yield* rows;
    const last = rows.at(-1);
    if (last === undefined || rows.length < PAGE) return;
    after = last.id;
  }
}
