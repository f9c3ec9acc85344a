import { describe, expect, it } from 'vitest';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { adminClient } from '../test-support/admin-client.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';

// An account's language choice is kept on the server and answered by the status the app loads first.
describe.each(bothStores())('account language (%s)', (kind) => {
  const t = useTestApp(kind);

  it('keeps a user’s choice and answers it in GET /api/status, for that user only', async () => {
    const user = await givenUser(t.ctx);
    const other = await givenUser(t.ctx);
    const client = adminClient(t.app, await givenUserSession(t, user));
    const otherClient = adminClient(t.app, await givenUserSession(t, other));
    expect((await client.get<{ data: { Language: unknown } }>('/api/status')).body.data.Language).toBeNull();

    const answer = await client.put('/api/account/language', { Language: 'de' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: null });
    expect((await client.get<{ data: { Language: unknown } }>('/api/status')).body.data.Language).toBe('de');
    expect((await otherClient.get<{ data: { Language: unknown } }>('/api/status')).body.data.Language).toBeNull();

    await client.put('/api/account/language', { Language: 'en' });
    expect((await client.get<{ data: { Language: unknown } }>('/api/status')).body.data.Language).toBe('en');
  });

  it('keeps an administrator’s choice and answers it in GET /api/admin/status', async () => {
    const admin = await givenAdmin(t.ctx);
    const client = adminClient(t.app, await givenAdminSession(t, admin));
    expect((await client.get<{ data: { Language: unknown } }>('/api/admin/status')).body.data.Language).toBeNull();
    expect((await client.put('/api/admin/account/language', { Language: 'de' })).status).toBe(200);
    expect((await client.get<{ data: { Language: unknown } }>('/api/admin/status')).body.data.Language).toBe('de');
  });

  it.each([
    ['a language the app has no texts for', { Language: 'fr' }],
    ['a region code', { Language: 'en-US' }],
    ['no language', {}],
    ['a number', { Language: 1 }],
  ])('refuses %s with 400 and keeps the earlier choice', async (_name, body) => {
    const user = await givenUser(t.ctx);
    const client = adminClient(t.app, await givenUserSession(t, user));
    await client.put('/api/account/language', { Language: 'de' });
    const answer = await client.put<{ Err: string; Extra: unknown }>('/api/account/language', body);
    expect(answer.status).toBe(400);
    expect(answer.body.Err).toEqual(expect.any(String));
    expect((await client.get<{ data: { Language: unknown } }>('/api/status')).body.data.Language).toBe('de');
  });

  it('does not let a user session set an administrator’s language, nor the reverse', async () => {
    const userClient = adminClient(t.app, await givenUserSession(t));
    const adminSession = adminClient(t.app, await givenAdminSession(t));
    expect((await userClient.put('/api/admin/account/language', { Language: 'de' })).status).toBe(401);
    expect((await adminSession.put('/api/account/language', { Language: 'de' })).status).toBe(401);
  });
});
