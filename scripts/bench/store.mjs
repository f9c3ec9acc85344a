// Direct writes into the running server's SQLite store (WAL mode, so a second connection may write
// while the server runs), for arranging large amounts of state quickly. Identifiers and token hashes
// come from the server's own built modules, so the rows are the ones the server itself would write.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../lib.mjs';

const dist = (file) => import(pathToFileURL(path.join(ROOT, 'apps/server/dist', file)).href);

const { loadSqliteDriver } = await dist('store/sqlite-driver.js');
const { uuidv7 } = await dist('lib/ids.js');
const { newSessionToken } = await dist('sessions/session-tokens.js');
const { agentTokenSecretContext, generateAgentToken, hashAgentToken } = await dist('agents/agent-token.js');
const { SecretBox } = await dist('secrets/secret-box.js');
const { readSecretKeyFile } = await dist('secrets/secret-key.js');

/** Opens the store file with the driver the server uses on this Node.js. */
export function openStore(file) {
  const Database = loadSqliteDriver();
  const db = new Database(file);
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  return db;
}

function columnsOf(db, table) {
  return db
    .prepare(`select name from pragma_table_info(?)`)
    .all(table)
    .map((row) => row.name);
}

/**
 * Copies a row of `table` once per element of `variants`, each copy with the columns in its variant
 * replaced. Copying a row the server made keeps every other column exactly as the server writes it.
 */
function cloneRows(db, table, keyColumn, keyValue, variants) {
  const columns = columnsOf(db, table);
  const overridden = Object.keys(variants[0] ?? {});
  const select = columns.map((column) => (overridden.includes(column) ? `@${column}` : `"${column}"`)).join(', ');
  const statement = db.prepare(
    `insert into "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) select ${select} from "${table}" where "${keyColumn}" = @__key`,
  );
  for (const variant of variants) {
    const result = statement.run({ ...variant, __key: keyValue });
    if (result.changes !== 1) throw new Error(`cloning ${table} ${keyValue} inserted ${result.changes} rows`);
  }
}

/**
 * Makes `count` users like the template user (same password hash, settings, group memberships), each
 * signed in once like the template session: a fresh random token whose SHA-256 the session row holds,
 * exactly as sign-in stores it. Returns their cookies' values (the tokens).
 */
export function cloneSignedInUsers(db, { templateUserId, templateSessionId, groupId, count }) {
  const now = Date.now();
  const tokens = [];
  db.transaction(() => {
    const users = [];
    const sessions = [];
    for (let i = 0; i < count; i += 1) {
      const userId = uuidv7(now);
      const userName = `bench-user-${String(i).padStart(4, '0')}`;
      users.push({ id: userId, name: `Bench user ${i}`, user_name: userName });
      const { token, tokenHash } = newSessionToken();
      sessions.push({ id: uuidv7(now), token_hash: tokenHash, user_id: userId });
      tokens.push(token);
    }
    cloneRows(db, 'users', 'id', templateUserId, users);
    const member = db.prepare('insert into group_users (group_id, user_id) values (?, ?)');
    for (const user of users) member.run(groupId, user.id);
    cloneRows(db, 'user_sessions', 'id', templateSessionId, sessions);
  })();
  return tokens;
}

/** The id of the running session whose token is `token` (found by its hash, as the server does). */
export async function sessionIdOfToken(db, token) {
  const { hashSessionToken } = await dist('sessions/session-tokens.js');
  const row = db.prepare('select id from user_sessions where token_hash = ?').get(hashSessionToken(token));
  if (row === undefined) throw new Error('no session row for the template user');
  return row.id;
}

/**
 * Makes `count` agents like the template agent, each with its own new token stored as the admin API
 * stores it (SHA-256 for the lookup, sealed with the server's key from `secretKeyFile` for showing it
 * again). Returns their ids and tokens.
 */
export function cloneAgents(db, { templateAgentId, secretKeyFile, count }) {
  const secrets = new SecretBox([readSecretKeyFile(secretKeyFile)]);
  const now = Date.now();
  const agents = Array.from({ length: count }, (_, i) => ({
    id: uuidv7(now),
    name: `bench-agent-${String(i).padStart(5, '0')}`,
    token: generateAgentToken(),
  }));
  const rows = agents.map(({ id, name, token }) => ({
    id,
    name,
    token_hash: hashAgentToken(token),
    token_secret: secrets.seal(token, agentTokenSecretContext(id)),
  }));
  db.transaction(() => cloneRows(db, 'agents', 'id', templateAgentId, rows))();
  return agents.map(({ id, token }) => ({ id, token }));
}

/**
 * Inserts `addresses.length` running grants on the knoc as an admin's break-glass grants are stored
 * (no session, origin 'admin'), Pending, ending in `ttlMs`.
 */
export function insertRunningGrants(db, { aclId, addresses, ttlMs }) {
  const now = Date.now();
  const insert = db.prepare(
    `insert into grants (id, acl_id, session_id, user_id, user_name, ip, origin, status, error, created_at, updated_at, expires_at)
     values (?, ?, null, null, 'bench', ?, 'admin', 2, '', ?, ?, ?)`,
  );
  db.transaction(() => {
    for (const ip of addresses) insert.run(uuidv7(now), aclId, ip, now, now, now + ttlMs);
  })();
}

/** How many running grants on the knoc the server has recorded as Granted (status 0). */
export function grantedCount(db, aclId) {
  return db.prepare('select count(*) as n from grants where acl_id = ? and ended_at is null and status = 0').get(aclId)
    .n;
}
