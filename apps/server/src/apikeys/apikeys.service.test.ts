import { describe, expect, it } from 'vitest';
import { AuditActions, ErrorCodes, type AllowedFromEntry } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenKnoc, givenUser } from '../test-support/factories.js';
import { recentAudit } from '../audit/audit.js';
import { ApiError } from '../errors.js';
import { uuidv7 } from '../lib/ids.js';
import { createApiKey, updateApiKey, verifyApiKey, type NewApiKeyInput } from './apikeys.service.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('API key service (sqlite)', () => {
  const t = useTestApp('sqlite');

  const newKey = (input: NewApiKeyInput) =>
    t.ctx.db.transaction().execute((trx) => createApiKey(trx, t.ctx, input, { AdminName: 'ops' }));
  const lastUsed = async (id: string) =>
    (await t.ctx.db.selectFrom('apiKeys').select('lastUsedAt').where('id', '=', id).executeTakeFirstOrThrow())
      .lastUsedAt;

  describe('verifyApiKey', () => {
    const office: AllowedFromEntry[] = [
      { Prefix: '192.0.2.0/24', Note: 'office v4' },
      { Prefix: '2001:db8:1::/48', Note: 'office v6' },
    ];

    it.each([
      ['the right key, scope and IPv4 address', {}, true],
      ['an IPv6 address inside the range', { address: '2001:db8:1:2::9' }, true],
      ['an IPv4-mapped IPv6 address inside the range', { address: '::ffff:192.0.2.77' }, true],
      ['an IPv4 address outside every range', { address: '198.51.100.1' }, false],
      ['an IPv6 address outside every range', { address: '2001:db8:2::1' }, false],
      ['an IPv4-mapped address outside the range', { address: '::ffff:198.51.100.1' }, false],
      ['an unparsable address', { address: 'unknown' }, false],
      ['a scope the key lacks', { scope: 'agent.register' }, false],
      ['a scope for another knoc', { scope: 'allowlist.read:other' }, false],
      ['a scope that is a prefix of one it has', { scope: 'allowlist.read' }, false],
      ['a key one character off', { tamper: true }, false],
      ['a key that is not a Postern key at all', { plaintext: 'Basic YXBpdXNlcg==' }, false],
      ['an empty key', { plaintext: '' }, false],
      ['the last moment before expiry', { advance: 30 * DAY - 1 }, true],
      ['the moment of expiry', { advance: 30 * DAY }, false],
      ['a day after expiry', { advance: 31 * DAY }, false],
    ])(
      'with %s: %s',
      async (
        _case,
        change: { address?: string; scope?: string; tamper?: boolean; plaintext?: string; advance?: number },
        accepted,
      ) => {
        const knoc = await givenKnoc(t.ctx);
        const { record, plaintext } = await newKey({
          Name: 'poller',
          Scopes: [`allowlist.read:${knoc.id}`, 'user.sessions'],
          AllowedFrom: office,
          ExpiredAfter: new Date(t.clock.now() + 30 * DAY).toISOString(),
        });
        t.clock.advance(change.advance ?? MINUTE);
        const presented =
          change.plaintext ??
          (change.tamper === true ? `${plaintext.slice(0, -1)}${plaintext.endsWith('A') ? 'B' : 'A'}` : plaintext);
        const verdict = await verifyApiKey(
          t.ctx,
          presented,
          change.address ?? '192.0.2.10',
          change.scope ?? `allowlist.read:${knoc.id}`,
        );
        if (accepted) expect(verdict).toMatchObject({ ok: true, key: { ID: record.ID, Name: 'poller' } });
        else expect(verdict.ok).toBe(false);
        // The verdict records nothing: the caller records the use together with what else it writes.
        expect(await lastUsed(record.ID)).toBeNull();
      },
    );

    it('says which rule refused a key: unknown, expired, scope, address', async () => {
      const { plaintext } = await newKey({
        Name: 'k',
        Scopes: ['user.sessions'],
        AllowedFrom: [{ Prefix: '192.0.2.0/24', Note: 'office' }],
        ExpiredAfter: new Date(t.clock.now() + DAY).toISOString(),
      });
      const refusal = async (key: string, address: string, scope: string) => {
        const verdict = await verifyApiKey(t.ctx, key, address, scope);
        return verdict.ok ? 'accepted' : verdict.refusal;
      };
      expect(await refusal(plaintext, '192.0.2.1', 'user.sessions')).toBe('accepted');
      expect(await refusal(plaintext, '192.0.2.1', 'agent.register')).toBe('scope');
      expect(await refusal(plaintext, '198.51.100.1', 'user.sessions')).toBe('address');
      expect(await refusal('not-a-key', '192.0.2.1', 'user.sessions')).toBe('unknown');
      t.clock.advance(2 * DAY);
      expect(await refusal(plaintext, '192.0.2.1', 'user.sessions')).toBe('expired');
    });

    it('lets a key created without AllowedFrom be used from any IPv4 or IPv6 address', async () => {
      const { plaintext } = await newKey({ Name: 'k', Scopes: ['agent.register'] });
      for (const address of ['203.0.113.1', '::ffff:10.0.0.1', '2001:db8::1', '::1', '127.0.0.1']) {
        expect((await verifyApiKey(t.ctx, plaintext, address, 'agent.register')).ok, address).toBe(true);
      }
    });

    it('refuses a key whose AllowedFrom an admin emptied: allowed from nowhere', async () => {
      const { record, plaintext } = await newKey({ Name: 'k', Scopes: ['agent.register'] });
      await updateApiKey(t.ctx, { AdminName: 'ops' }, record.ID, { ID: record.ID, AllowedFrom: [] });
      for (const address of ['203.0.113.1', '2001:db8::1', '127.0.0.1']) {
        expect((await verifyApiKey(t.ctx, plaintext, address, 'agent.register')).ok, address).toBe(false);
      }
    });

    it('refuses a key deleted after it was handed out', async () => {
      const { record, plaintext } = await newKey({ Name: 'k', Scopes: ['agent.register'] });
      await t.ctx.db.deleteFrom('apiKeys').where('id', '=', record.ID).execute();
      expect((await verifyApiKey(t.ctx, plaintext, '203.0.113.1', 'agent.register')).ok).toBe(false);
    });
  });

  describe('createApiKey inside another transaction', () => {
    it('creates a user.auth key for a user inserted earlier in the same transaction, audited there', async () => {
      const userId = uuidv7();
      const { record, plaintext } = await t.ctx.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            id: userId,
            name: 'Robot',
            userName: 'robot',
            company: '',
            authType: 'apikey',
            passwordHash: null,
            ldapDn: null,
            durationMinutes: 480,
            sessionLimit: null,
            totpEnabled: false,
            totpVerified: false,
            totpSecret: null,
            disabled: false,
            validUntil: null,
            createdAt: t.clock.now(),
            updatedAt: t.clock.now(),
            lastLogin: null,
          })
          .execute();
        return createApiKey(trx, t.ctx, { Name: 'robot key', Scopes: [`user.auth:${userId}`] }, { AdminName: 'ops' });
      });
      expect(record.Resources).toEqual([userId]);
      expect((await verifyApiKey(t.ctx, plaintext, '10.0.0.1', `user.auth:${userId}`)).ok).toBe(true);
      const [entry] = await recentAudit(t.ctx.db, 1);
      expect(entry?.Entry).toEqual({ [AuditActions.ApiKeyCreated]: { AdminName: 'ops', Description: 'robot key' } });
    });

    it('leaves nothing behind when the surrounding transaction fails', async () => {
      await expect(
        t.ctx.db.transaction().execute(async (trx) => {
          await createApiKey(trx, t.ctx, { Name: 'k', Scopes: ['agent.register'] });
          throw new Error('user creation failed');
        }),
      ).rejects.toThrow('user creation failed');
      expect(await t.ctx.db.selectFrom('apiKeys').selectAll().execute()).toEqual([]);
    });

    it.each([
      ['a blank name', { Name: '  ', Scopes: ['agent.register'] }, 400, ErrorCodes.badRequest],
      ['no scopes', { Name: 'k', Scopes: [] }, 400, ErrorCodes.badRequest],
      ['a malformed scope', { Name: 'k', Scopes: ['root'] }, 400, ErrorCodes.invalidScope],
      ['an unknown user', { Name: 'k', Scopes: [`user.auth:${uuidv7()}`] }, 400, ErrorCodes.invalidScope],
      [
        'a bad CIDR',
        { Name: 'k', Scopes: ['agent.register'], AllowedFrom: [{ Prefix: '10.0.0.0/40', Note: 'x' }] },
        400,
        ErrorCodes.invalidCidr,
      ],
      [
        'an expiry in the past',
        { Name: 'k', Scopes: ['agent.register'], ExpiredAfter: '2000-01-01T00:00:00Z' },
        400,
        ErrorCodes.badRequest,
      ],
      ['a taken name', { Name: 'taken', Scopes: ['agent.register'] }, 409, ErrorCodes.apiKeyNameExists],
    ] as const)('applies the API’s rules to direct callers too: %s', async (_case, input, status, code) => {
      await newKey({ Name: 'taken', Scopes: ['user.sessions'] });
      const error: unknown = await newKey(input).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ statusCode: status, code });
    });

    it('accepts scopes for a user created earlier and for an existing knoc', async () => {
      const user = await givenUser(t.ctx);
      const knoc = await givenKnoc(t.ctx);
      const { record } = await newKey({ Name: 'k', Scopes: [`user.auth:${user.id}`, `allowlist.read:${knoc.id}`] });
      expect(record.Resources).toEqual([user.id, knoc.id]);
    });
  });
});
