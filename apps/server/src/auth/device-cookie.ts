import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../app-context.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { Database } from '../store/schema.js';

/**
 * Device cookies, as OWASP's "Slow Down Online Guessing Attacks with Device Cookies" describes them.
 * A browser whose password step succeeded for an account gets a signed entry for that account; a
 * sign-in that presents a valid entry for the account it names is judged by that entry's own budget
 * (throttle.ts, DEVICE_POLICY), never by the account-wide keys that strangers can fill. Everyone else
 * is an untrusted client and shares the account's keys.
 *
 * One cookie per browser holds the entries of the few accounts signed in on it most recently (a user
 * and an administrator, say), newest first: `u|a . accountId . issuedAt (base 36) . nonce . mac`,
 * joined by `~`. The MAC is HMAC-SHA256 over every other field under a key derived for this purpose
 * alone from the server's secret key, so every replica with the same POSTERN_SECRET_KEY honours it and
 * nothing else can make one. An entry is honoured for DEVICE_COOKIE_LIFETIME_MS after it was issued,
 * and only while it was issued after its account's `device_cookies_valid_after` (migration 0013),
 * which a password change and an administrator's "end all sessions" move to now.
 */

const DAY_MS = 24 * 60 * 60_000;

/** How long an entry is honoured after it was issued; every successful sign-in issues a fresh one. */
export const DEVICE_COOKIE_LIFETIME_MS = 90 * DAY_MS;

/** The most accounts one browser's device cookie remembers; the least recently signed in drops out. */
export const DEVICE_COOKIE_ENTRIES_MAX = 5;

/** Which kind of account an entry is for: the sign-in forms look users and administrators up apart. */
export type AccountRealm = 'user' | 'admin';

/** An account, as a device cookie entry is bound to it. */
export interface AccountRef {
  realm: AccountRealm;
  id: string;
}

/** One account's entry in a device cookie, its MAC checked. */
export interface DeviceEntry extends AccountRef {
  issuedAt: number;
  /** 128 random bits in base64url; names the entry's own throttle key. */
  nonce: string;
  /** The entry as the cookie carries it. */
  text: string;
}

/** A device cookie to set: its whole value and when the browser may drop it (null: when it closes). */
export interface IssuedDeviceCookie {
  value: string;
  expiresAt: number | null;
}

const ENTRY_SEPARATOR = '~';
const MAC_LABEL = 'device-cookie';
const FORMAT = 'postern-device-v1';
const REALM_TAGS: Readonly<Record<AccountRealm, string>> = { user: 'u', admin: 'a' };
const NONCE_BYTES = 16;
const ENTRY_PATTERN = /^([ua])\.([0-9A-Za-z-]{1,64})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** The derived MAC key of each SecretBox (one per app context), computed once. */
const macKeys = new WeakMap<SecretBox, Buffer>();

function macKey(secrets: SecretBox): Buffer {
  let key = macKeys.get(secrets);
  if (key === undefined) {
    key = secrets.deriveKey(MAC_LABEL);
    macKeys.set(secrets, key);
  }
  return key;
}

function macOf(secrets: SecretBox, fields: readonly string[]): Buffer {
  return createHmac('sha256', macKey(secrets))
    .update([FORMAT, ...fields].join('|'))
    .digest();
}

/**
 * The entries of a presented device cookie whose MAC holds and that have not expired; anything else
 * in it (tampered, forged, expired, or past the first few entries) is ignored. Whether an entry is
 * still honoured for its account is for trustedDevice to say.
 */
export function readDeviceCookie(secrets: SecretBox, value: string | undefined, now: number): DeviceEntry[] {
  if (value === undefined || value === '') return [];
  const entries: DeviceEntry[] = [];
  for (const text of value.split(ENTRY_SEPARATOR, DEVICE_COOKIE_ENTRIES_MAX)) {
    const match = ENTRY_PATTERN.exec(text);
    if (match === null) continue;
    const [, tag = '', id = '', issued = '', nonce = '', mac = ''] = match;
    const expected = macOf(secrets, [tag, id, issued, nonce]);
    const presented = Buffer.from(mac, 'base64url');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) continue;
    const issuedAt = parseInt(issued, 36);
    if (now >= issuedAt + DEVICE_COOKIE_LIFETIME_MS) continue;
    entries.push({ realm: tag === 'a' ? 'admin' : 'user', id, issuedAt, nonce, text });
  }
  return entries;
}

/**
 * The entry that makes this browser a trusted device of `account`, or null: there is none for that
 * very account (realm and id), or it was issued before the account's device cookies were revoked.
 */
export async function trustedDevice(
  db: Kysely<Database>,
  entries: readonly DeviceEntry[],
  account: AccountRef,
): Promise<DeviceEntry | null> {
  const entry = entries.find((candidate) => sameAccount(candidate, account));
  if (entry === undefined) return null;
  const validAfter = await devicesValidAfter(db, account);
  return validAfter !== null && entry.issuedAt > validAfter ? entry : null;
}

/**
 * A fresh entry for `account` (new nonce, so a fresh budget, and the full lifetime from now) in front
 * of the browser's other entries, at most DEVICE_COOKIE_ENTRIES_MAX in all. Issued after the
 * account's revocation instant even when that is this very millisecond. A kiosk sign-in's cookie
 * (`untilBrowserCloses`) dies with the browser, as its session cookie does: a shared terminal stays
 * known only while it stays open.
 */
export async function renewDeviceCookie(
  ctx: Pick<AppContext, 'db' | 'secrets' | 'clock'>,
  entries: readonly DeviceEntry[],
  account: AccountRef,
  { untilBrowserCloses = false } = {},
): Promise<IssuedDeviceCookie> {
  const validAfter = (await devicesValidAfter(ctx.db, account)) ?? 0;
  const issuedAt = Math.max(ctx.clock.now(), validAfter + 1);
  const fields = [
    REALM_TAGS[account.realm],
    account.id,
    issuedAt.toString(36),
    randomBytes(NONCE_BYTES).toString('base64url'),
  ];
  const entry = [...fields, macOf(ctx.secrets, fields).toString('base64url')].join('.');
  const others = entries.filter((candidate) => !sameAccount(candidate, account)).map((other) => other.text);
  return {
    value: [entry, ...others].slice(0, DEVICE_COOKIE_ENTRIES_MAX).join(ENTRY_SEPARATOR),
    expiresAt: untilBrowserCloses ? null : issuedAt + DEVICE_COOKIE_LIFETIME_MS,
  };
}

/**
 * Stops honouring the device cookies issued until `now` for one account or for every account of a
 * realm (an administrator ending all sessions). A new password revokes them in the statement that
 * stores it (users.repo.ts, admins.repo.ts).
 */
export async function revokeDeviceCookies(
  db: Kysely<Database>,
  realm: AccountRealm,
  which: { id: string } | 'all',
  now: number,
): Promise<void> {
  const table = realm === 'user' ? 'users' : 'admins';
  let update = db.updateTable(table).set({ deviceCookiesValidAfter: now });
  if (which !== 'all') update = update.where('id', '=', which.id);
  await update.execute();
}

async function devicesValidAfter(db: Kysely<Database>, account: AccountRef): Promise<number | null> {
  const table = account.realm === 'user' ? 'users' : 'admins';
  const row = await db
    .selectFrom(table)
    .select('deviceCookiesValidAfter')
    .where('id', '=', account.id)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.deviceCookiesValidAfter);
}

function sameAccount(entry: AccountRef, account: AccountRef): boolean {
  return entry.realm === account.realm && entry.id === account.id;
}
