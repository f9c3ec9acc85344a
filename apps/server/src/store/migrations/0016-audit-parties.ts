import type { Kysely } from 'kysely';

/** Rows read and rewritten per round of the fill, so a long log never sits in memory at once. */
const FILL_BATCH = 500;

/**
 * `audit_log.actor` and `audit_log.target`: who acted and whom the entry is about, as columns, so the
 * Logs screen can show them apart and the list route can filter on them in SQL. Until now both lived
 * only inside the JSON detail, in fields that name an account's kind rather than its role. Entries
 * already written are filled in by the rules new writes used when this migration was written (a frozen
 * copy of audit/parties.ts at the end of this file, so a later change there cannot change what this
 * migration does), so old and new entries filter alike.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('actor', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('target', 'text').execute();
  await db.schema.createIndex('audit_log_actor').on('audit_log').column('actor').execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').column('target').execute();
  await db.schema.createIndex('audit_log_action').on('audit_log').column('action').execute();
  await fillParties(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['audit_log_action', 'audit_log_target', 'audit_log_actor']) {
    await db.schema.dropIndex(index).execute();
  }
  await db.schema.alterTable('audit_log').dropColumn('target').execute();
  await db.schema.alterTable('audit_log').dropColumn('actor').execute();
}

/** The table as this migration sees it (no camel-case plugin here: column names as stored). */
interface FillSchema {
  audit_log: { id: string; action: string; detail: string; actor: string | null; target: string | null };
}

async function fillParties(db: Kysely<FillSchema>): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('audit_log')
      .select(['id', 'action', 'detail'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(FILL_BATCH)
      .execute();
    if (rows.length === 0) return;
    // One UPDATE per distinct pair in the batch: a log is mostly a few people doing a few things.
    const idsByPair = new Map<string, { actor: string | null; target: string | null; ids: string[] }>();
    for (const row of rows) {
      const parties = partiesOf(row.action, detailOf(row.detail));
      if (parties.actor === null && parties.target === null) continue;
      const key = JSON.stringify([parties.actor, parties.target]);
      const pair = idsByPair.get(key) ?? { ...parties, ids: [] };
      pair.ids.push(row.id);
      idsByPair.set(key, pair);
    }
    for (const { actor, target, ids } of idsByPair.values()) {
      await db.updateTable('audit_log').set({ actor, target }).where('id', 'in', ids).execute();
    }
    after = rows.at(-1)?.id ?? after;
  }
}

/*
 * The party rules as of this migration: a copy of audit/parties.ts and of the detail's reading
 * (audit.ts parseAuditDetail, protocol AuditDetail) taken when it was written. Never change them to
 * follow those files; a later rule for new entries belongs in a new migration if old ones need it.
 */

/** The detail fields that can name a party. */
const DETAIL_FIELDS = [
  'UserName',
  'AdminName',
  'AgentName',
  'IpAddress',
  'ErrorMessage',
  'AclDescription',
  'Description',
];

type Detail = Partial<Record<string, string>>;

/** An entry's stored detail: its string fields; an unreadable one, or one with a field that is not a string, as empty. */
function detailOf(text: string): Detail {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const detail: Detail = {};
  for (const field of DETAIL_FIELDS) {
    const value: unknown = (parsed as Record<string, unknown>)[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') return {};
    detail[field] = value;
  }
  return detail;
}

/** Which fields hold an action's actor and target (the first one set wins); no `actor`: the usual one. */
interface PartyFields {
  actor?: readonly string[];
  target?: readonly string[];
}

const BY_SOMEONE: readonly string[] = ['AdminName', 'UserName', 'AgentName'];
const NOBODY: readonly string[] = [];
const ON_USER: PartyFields = { actor: ['AdminName'], target: ['UserName'] };
const ON_KNOC: PartyFields = { target: ['AclDescription'] };
const ON_AGENT: PartyFields = { actor: ['AdminName', 'UserName'], target: ['AgentName'] };
const ON_NAMED: PartyFields = { actor: ['AdminName', 'UserName'], target: ['Description'] };
const BY_AGENT: PartyFields = { actor: ['AgentName'] };
const BY_THE_SYSTEM_ON_ADMIN: PartyFields = { actor: NOBODY, target: ['AdminName'] };
/** The changes to admin accounts, whose fields depend on who made them (see adminAccountFields). */
const ON_ADMIN = 'on-admin';

/** The actions whose parties are not the usual actor alone, as they were named then. */
const PARTY_FIELDS: Readonly<Record<string, PartyFields | typeof ON_ADMIN>> = {
  AdminCreatedAutomatically: BY_THE_SYSTEM_ON_ADMIN,
  AdminCreated: ON_ADMIN,
  AdminPasswordReset: BY_THE_SYSTEM_ON_ADMIN,
  AdminUpdated: ON_ADMIN,
  AdminDeleted: ON_ADMIN,
  AdminTotpReset: ON_ADMIN,
  UserCreated: ON_USER,
  UserCreatedBySaml: { actor: ['UserName'], target: ['UserName'] },
  UserUpdated: ON_USER,
  UserDeleted: ON_USER,
  UserTotpReset: ON_USER,
  SessionLimitEnforced: { actor: NOBODY, target: ['UserName'] },
  GroupCreated: ON_NAMED,
  GroupUpdated: ON_NAMED,
  GroupDeleted: ON_NAMED,
  ApiKeyCreated: ON_NAMED,
  ApiKeyUpdated: ON_NAMED,
  ApiKeyDeleted: ON_NAMED,
  AgentCreated: ON_AGENT,
  AgentUpdated: ON_AGENT,
  AgentDeleted: ON_AGENT,
  AgentTokenRotated: ON_AGENT,
  AgentConnected: BY_AGENT,
  AgentDisconnected: BY_AGENT,
  AgentAuthFailed: BY_AGENT,
  AgentEnrolled: BY_AGENT,
  BackendCreated: ON_NAMED,
  BackendUpdated: ON_NAMED,
  BackendDeleted: ON_NAMED,
  KnocCreated: ON_KNOC,
  KnocUpdated: ON_KNOC,
  KnocDeleted: ON_KNOC,
  ClickToGrant: ON_KNOC,
  ClickToRevoke: ON_KNOC,
  Grant: ON_KNOC,
  GrantFailed: ON_KNOC,
  Revoke: ON_KNOC,
  RevokeFailed: ON_KNOC,
  AdminBreakGlassGrant: ON_KNOC,
  AllowlistRead: ON_KNOC,
  AllowlistReadRefused: ON_KNOC,
};

/** An admin account changed in the console names the admin in Description; by the command line, in AdminName. */
function adminAccountFields(detail: Detail): PartyFields {
  return detail.Description === undefined || detail.Description === ''
    ? BY_THE_SYSTEM_ON_ADMIN
    : { actor: ['AdminName'], target: ['Description'] };
}

function firstSet(detail: Detail, fields: readonly string[]): string | null {
  for (const field of fields) {
    const value = detail[field];
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

/** The actor and target of an entry; any other action gets the usual actor only. */
function partiesOf(action: string, detail: Detail): { actor: string | null; target: string | null } {
  const known = Object.hasOwn(PARTY_FIELDS, action) ? PARTY_FIELDS[action] : undefined;
  const fields = known === ON_ADMIN ? adminAccountFields(detail) : (known ?? {});
  return {
    actor: firstSet(detail, fields.actor ?? BY_SOMEONE),
    target: firstSet(detail, fields.target ?? NOBODY),
  };
}
