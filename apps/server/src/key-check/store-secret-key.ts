import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { ConfigError } from '../config/config-error.js';
import { SecretBox, sealedKeyId, type SecretContext } from '../secrets/secret-box.js';
import {
  createSecretKeyFile,
  readSecretKeyFile,
  SECRET_KEY_FILE,
  SECRET_KEY_SETTING,
  secretKeyFilePath,
} from '../secrets/secret-key.js';
import { sealedValuesInStore, storeHoldsSealedValues } from './sealed-values.js';

/**
 * The key check: a known text sealed with the key the store's secrets are sealed with, kept in
 * store_meta. Sealed rather than hashed: it reveals nothing about the key (AES-GCM under a fresh IV),
 * opening it is the very operation the secrets need, and a SecretBox with several keys (a rotation)
 * opens a check sealed by any of them. It carries the key id, which every sealed value shows anyway.
 */
const KEY_CHECK_META = 'secret-key-check';
const KEY_CHECK_CONTEXT: SecretContext = { table: 'store_meta', column: 'value', rowId: KEY_CHECK_META };
const KEY_CHECK_TEXT = 'postern secret key check';

/** Where the key came from, for the one line that says it is wrong. */
interface KeySource {
  key: Buffer;
  /** "POSTERN_SECRET_KEY" or the key file's path. */
  description: string;
  fromFile: boolean;
}

export interface StoreSecretBox {
  secrets: SecretBox;
  /** The key came from the data directory's key file rather than POSTERN_SECRET_KEY. */
  fromFile: boolean;
}

/**
 * The SecretBox for this store, with a key proven to be the one its secrets are sealed with:
 * POSTERN_SECRET_KEY when set, else `<data dir>/secret.key`. A lost or wrong key would otherwise go
 * unnoticed until TOTP, SAML or a vendor knoc failed, and every secret sealed meanwhile would be
 * sealed under the wrong key; so this refuses to start (a ConfigError: one line, exit code 2):
 *
 * - when the key does not open the stored key check, or (a store from before the check, which holds
 *   sealed values) opens none of those values;
 * - when the key file is missing while the store holds a key check or sealed values. A new key file
 *   is written only for a store with neither, which nothing sealed can have depended on.
 *
 * The first start that passes records the check. Every replica sharing a PostgreSQL store passes the
 * same check, so a replica started with another key refuses too.
 */
export async function loadStoreSecretBox(
  db: Kysely<Database>,
  configured: Buffer | null,
  dataDir: string,
): Promise<StoreSecretBox> {
  const source = await keySource(db, configured, dataDir);
  const secrets = new SecretBox([source.key]);
  await checkStoreKey(db, secrets, source.description);
  return { secrets, fromFile: source.fromFile };
}

/**
 * Proves that `secrets` opens what the store holds sealed and records the key check when it is
 * missing (first start, or a store from before the check) or was sealed with an older key of
 * `secrets` (a rotation). Throws ConfigError naming `sourceDescription` otherwise.
 */
export async function checkStoreKey(
  db: Kysely<Database>,
  secrets: SecretBox,
  sourceDescription: string,
): Promise<void> {
  let check = await readKeyCheck(db);
  if (check === null) {
    await proveKeyOpensSealedValues(db, secrets, sourceDescription);
    // Two servers starting on a new store at once: the first check recorded stands, and the other
    // server verifies against it below like any later start.
    await db
      .insertInto('storeMeta')
      .values({ key: KEY_CHECK_META, value: secrets.seal(KEY_CHECK_TEXT, KEY_CHECK_CONTEXT) })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    check = (await readKeyCheck(db)) ?? '';
  }
  if (!opensKeyCheck(secrets, check)) throw wrongKey(sourceDescription, secrets, sealedKeyId(check));
  if (sealedKeyId(check) !== secrets.currentKeyId) {
    await db
      .updateTable('storeMeta')
      .set({ value: secrets.seal(KEY_CHECK_TEXT, KEY_CHECK_CONTEXT) })
      .where('key', '=', KEY_CHECK_META)
      .execute();
  }
}

/** The configured key, the key file's, or (only for a store with nothing sealed) a new key file's. */
async function keySource(db: Kysely<Database>, configured: Buffer | null, dataDir: string): Promise<KeySource> {
  if (configured !== null) return { key: configured, description: SECRET_KEY_SETTING, fromFile: false };
  const file = secretKeyFilePath(dataDir);
  const existing = readSecretKeyFile(file);
  if (existing !== null) return { key: existing, description: file, fromFile: true };
  if ((await readKeyCheck(db)) !== null || (await storeHoldsSealedValues(db))) {
    throw new ConfigError(
      SECRET_KEY_SETTING,
      `${file} is missing, but the store holds secrets sealed with the key it held; restore ${SECRET_KEY_FILE} ` +
        `from the backup taken with the store (or set ${SECRET_KEY_SETTING} to that key). ` +
        'No new key is made: it could not open those secrets',
    );
  }
  return { key: createSecretKeyFile(file), description: file, fromFile: true };
}

/**
 * For a store without a key check: when it holds sealed values, at least one must open. Values are
 * tried until one does, so a few moved or damaged rows do not stop a server whose key is right.
 */
async function proveKeyOpensSealedValues(
  db: Kysely<Database>,
  secrets: SecretBox,
  sourceDescription: string,
): Promise<void> {
  let firstKeyId: string | null | undefined;
  for await (const value of sealedValuesInStore(db)) {
    firstKeyId ??= sealedKeyId(value.sealed);
    try {
      secrets.open(value.sealed, value.context);
      return;
    } catch {
      // Try the next one.
    }
  }
  if (firstKeyId !== undefined) throw wrongKey(sourceDescription, secrets, firstKeyId);
}

function opensKeyCheck(secrets: SecretBox, check: string): boolean {
  try {
    return secrets.open(check, KEY_CHECK_CONTEXT) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}

async function readKeyCheck(db: Kysely<Database>): Promise<string | null> {
  const row = await db.selectFrom('storeMeta').select('value').where('key', '=', KEY_CHECK_META).executeTakeFirst();
  return row?.value ?? null;
}

function wrongKey(sourceDescription: string, secrets: SecretBox, storedKeyId: string | null): ConfigError {
  const sealedWith = storedKeyId === null ? 'another key' : `key ${storedKeyId}`;
  return new ConfigError(
    SECRET_KEY_SETTING,
    `the key from ${sourceDescription} (key ${secrets.currentKeyId}) is not the key this store's secrets are ` +
      `sealed with (${sealedWith}); restore ${SECRET_KEY_FILE} from the backup taken with the store, ` +
      `or set ${SECRET_KEY_SETTING} to that key`,
  );
}
