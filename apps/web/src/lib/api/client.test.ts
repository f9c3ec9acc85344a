import { UserSessionInfo } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { installFakeApi } from '../../test-support/fake-api';
import { userSession } from '../../test-support/fixtures';
import { ApiError } from './api-error';
import { api } from './client';
import { onInvalidSession } from './invalid-session';

describe('api client', () => {
  it('returns the data of the envelope, checked against the schema', async () => {
    const session = userSession();
    installFakeApi({ 'POST /api/login': { body: { data: session } } });
    await expect(api.post('/login', { UserName: 'ada' }, UserSessionInfo)).resolves.toEqual(session);
  });

  it('sends JSON with a content type only when there is a body, same-origin with credentials', async () => {
    const fake = installFakeApi();
    await api.post('/logout');
    await api.post('/login', { UserName: 'ada' }).catch(() => undefined);
    const [logout, login] = fake.requests;
    expect(logout?.headers['content-type']).toBeUndefined();
    expect(login?.headers['content-type']).toBe('application/json');
    expect(fake.fetchMock.mock.calls[0]?.[0]).toBe('/api/logout');
    expect(fake.fetchMock.mock.calls[0]?.[1]?.credentials).toBe('same-origin');
  });

  it('throws an ApiError with the status, Err and Extra of a failure', async () => {
    installFakeApi({ 'PUT /api/password': { status: 400, body: { Err: 'err.badRequest', Extra: 'NewPassword' } } });
    const failure = await api.put('/password', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 400, err: 'err.badRequest', extra: 'NewPassword' });
  });

  it('reads the seconds of a Retry-After header', async () => {
    installFakeApi({
      'POST /api/login': {
        status: 429,
        body: { Err: 'err.tooManyRequests', Extra: '40s' },
        headers: { 'Retry-After': '40' },
      },
    });
    const failure = await api.post('/login', {}).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 429, extra: '40s', retryAfterSeconds: 40 });
  });

  it('throws an ApiError without a code when the answer is not ours', async () => {
    installFakeApi({ 'DELETE /api/thing': { status: 502, body: '<html>Bad gateway</html>' } });
    const failure = await api.delete('/thing').catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 502, err: undefined, message: '' });
  });

  it('treats a body that breaks the contract as a server fault', async () => {
    installFakeApi({ 'GET /api/login': { body: { data: { Name: 42 } } } });
    await expect(api.get('/login', UserSessionInfo)).rejects.toMatchObject({ status: 200, err: undefined });
  });

  it('announces err.invalidSession unless the caller handles it', async () => {
    installFakeApi();
    let announced = 0;
    const stop = onInvalidSession(() => (announced += 1));
    await api.get('/status').catch(() => undefined);
    await api.get('/status', undefined, { ignoreInvalidSession: true }).catch(() => undefined);
    stop();
    expect(announced).toBe(1);
  });
});
