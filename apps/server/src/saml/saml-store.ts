import type { Kysely } from 'kysely';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Database } from '../store/schema.js';
import type { Clock } from '../lib/clock.js';
import type { SamlRealm } from '../settings/settings.service.js';
import { isUniqueViolation } from '../lib/unique-violation.js';

/**
 * How long an AuthnRequest we sent may be answered: long enough to sign in at the IdP with a second
 * factor, short enough that an old tab cannot finish. (The session sweeper prunes rows after an hour.)
 */
export const SAML_REQUEST_LIFETIME_MS = 30 * 60_000;

/**
 * node-saml's InResponseTo cache, kept in the store so that a login started on one replica can finish
 * on another. All state is in the saml_requests table; an instance only remembers its realm, so a
 * response can only answer a request of the realm whose ACS received it.
 *
 * node-saml removes a request id after validating a response; here `removeAsync` does nothing and
 * `spendResponse` deletes the id instead, atomically and only after every check passed, so that
 * exactly one of two concurrent uses of the same response (on any replicas) can win.
 */
export class SamlRequestCache implements CacheProvider {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly realm: SamlRealm,
  ) {}

  async saveAsync(key: string, value: string): Promise<CacheItem | null> {
    const createdAt = this.clock.now();
    await this.db.insertInto('samlRequests').values({ id: key, realm: this.realm, createdAt }).execute();
    return { value, createdAt };
  }

  /** The request's creation instant (node-saml checks its age too), or null when unknown or expired. */
  async getAsync(key: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('samlRequests')
      .select('createdAt')
      .where('id', '=', key)
      .where('realm', '=', this.realm)
      .where('createdAt', '>', this.clock.now() - SAML_REQUEST_LIFETIME_MS)
      .executeTakeFirst();
    return row === undefined ? null : new Date(row.createdAt).toISOString();
  }

  removeAsync(key: string | null): Promise<string | null> {
    return Promise.resolve(key);
  }
}

export type SpendOutcome = 'spent' | 'request-unknown' | 'assertion-replayed';

/**
 * Marks a validated response as used, in one transaction: the request it answers is deleted (it must
 * still be there, unexpired, for this realm) and the assertion id is recorded (its primary key refuses
 * a second insert). Whichever replica commits first wins; the other gets 'request-unknown' or
 * 'assertion-replayed'. The assertion id is kept until `keepUntil`, after which the assertion has
 * expired and could not be accepted anyway.
 */
export async function spendResponse(
  db: Kysely<Database>,
  clock: Clock,
  args: { realm: SamlRealm; requestId: string; assertionId: string; keepUntil: number },
): Promise<SpendOutcome> {
  const now = clock.now();
  try {
    return await db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('samlRequests')
        .where('id', '=', args.requestId)
        .where('realm', '=', args.realm)
        .where('createdAt', '>', now - SAML_REQUEST_LIFETIME_MS)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) !== 1) throw new RequestUnknown();
      await trx.insertInto('samlAssertions').values({ id: args.assertionId, expiresAt: args.keepUntil }).execute();
      return 'spent' as const;
    });
  } catch (error) {
    if (error instanceof RequestUnknown) return 'request-unknown';
    if (isUniqueViolation(error)) return 'assertion-replayed';
    throw error;
  }
}

class RequestUnknown extends Error {}
