import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCodes, V1_LOGIN_PATH } from '@postern/protocol';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiError, PosternApi, retryAfterSeconds, sessionCookie, TransportError } from './api-client.js';
import { freePort } from '@postern/test-support';
import { givenServer, KEY } from './test-support/fixtures.js';

/** A plain HTTP server on 127.0.0.1 answering every request with `handler`. */
async function givenRawServer(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('the API client', () => {
  it.each(['postern_session', '__Host-postern_session'])(
    'signs in with the key as a Bearer token and sends the %s cookie back',
    async (cookieName) => {
      const { server, apiFor } = await givenServer('auto', { cookieName });
      const api = apiFor(server.url);

      const signIn = await api.signIn(KEY);
      const status = await api.status(signIn.cookie);

      expect(signIn.cookie).toMatch(new RegExp(`^${cookieName}=[0-9a-f]{32}$`));
      expect(signIn.info).toMatchObject({ UserName: 'backup-bot', AuthType: 'apikey' });
      expect(status.UserName).toBe('backup-bot');
      const [login, statusRequest] = server.requests;
      expect(login).toMatchObject({ method: 'POST', path: V1_LOGIN_PATH, authorization: `Bearer ${KEY}`, body: {} });
      expect(statusRequest).toMatchObject({ method: 'GET', path: '/api/status', session: signIn.cookie.split('=')[1] });
    },
  );

  it('keeps a path prefix of the server URL', async () => {
    const paths: string[] = [];
    const url = await givenRawServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"data": null}');
    });

    await new PosternApi({ server: `${url}/portal/` }).logout('postern_session=x');

    expect(paths).toEqual(['/portal/api/logout']);
  });

  it('turns {Err, Extra} and Retry-After into an ApiError', async () => {
    const url = await givenRawServer((_request, response) => {
      response
        .writeHead(429, { 'content-type': 'application/json', 'retry-after': '17' })
        .end(JSON.stringify({ Err: ErrorCodes.tooManyRequests, Extra: 'slow down' }));
    });

    const error = await new PosternApi({ server: url }).signIn(KEY).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 429,
      code: ErrorCodes.tooManyRequests,
      extra: 'slow down',
      retryAfterSeconds: 17,
      operation: `POST ${V1_LOGIN_PATH}`,
    });
  });

  it('makes an ApiError without a code of an error page that is not JSON', async () => {
    const url = await givenRawServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
    });

    await expect(new PosternApi({ server: url }).status('c=1')).rejects.toMatchObject({ status: 502, code: null });
  });

  it('does not follow a redirect, which would carry the key elsewhere', async () => {
    let requests = 0;
    const url = await givenRawServer((_request, response) => {
      requests += 1;
      response.writeHead(301, { location: 'https://elsewhere.example/api/v1/login' }).end();
    });

    const error = await new PosternApi({ server: url }).signIn(KEY).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({
      problem: 'redirect',
      message: expect.stringContaining('https://elsewhere.example') as string,
    });
    expect(requests).toBe(1);
  });

  it('refuses a 200 that is not a Postern answer', async () => {
    const url = await givenRawServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<html>Welcome to the hotel wifi</html>');
    });

    await expect(new PosternApi({ server: url }).status('c=1')).rejects.toMatchObject({ problem: 'unexpected' });
  });

  it('reports a server that does not answer as unreachable', async () => {
    const port = await freePort();

    await expect(new PosternApi({ server: `http://127.0.0.1:${port}` }).signIn(KEY)).rejects.toMatchObject({
      problem: 'unreachable',
      message: expect.stringContaining('ECONNREFUSED') as string,
    });
  });

  it('gives up on a server that answers too slowly', async () => {
    const url = await givenRawServer(() => undefined);

    await expect(new PosternApi({ server: url, requestTimeoutMs: 100 }).status('c=1')).rejects.toMatchObject({
      problem: 'unreachable',
      message: expect.stringContaining('no answer') as string,
    });
  });
});

describe('reading headers', () => {
  it('takes the first name=value of each Set-Cookie and skips cookies being cleared', () => {
    const headers = new Headers();
    headers.append('set-cookie', '__Host-postern_session=abc; Path=/; Secure; HttpOnly');
    headers.append('set-cookie', 'postern_admin_session=; Path=/; Max-Age=0');
    headers.append('set-cookie', 'other=1');

    expect(sessionCookie(headers)).toBe('__Host-postern_session=abc; other=1');
  });

  it.each([
    ['30', 30],
    [' 5 ', 5],
    ['Wed, 01 Jan 2030 12:01:00 GMT', 60],
    ['soon', null],
    [null, null],
  ])('reads Retry-After %j as %j seconds', (header, seconds) => {
    expect(retryAfterSeconds(header, Date.UTC(2030, 0, 1, 12))).toBe(seconds);
  });
});
