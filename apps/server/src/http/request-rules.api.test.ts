import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenAdminSession, givenUserSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { waitFor } from '@postern/test-support';

/**
 * The outside probe's reproductions, each as it was sent: what answered 200 (or 500, or leaked the
 * framework) must now be refused in the envelope, with nothing done.
 */
describe('request rules against the probe’s reproductions (sqlite)', () => {
  const t = useTestApp('sqlite');

  it.each([
    '/api/%61dmin/agents',
    '/api/%61dmin/logs',
    '/api/%61dmin/api-keys',
    '/api/%61dmin/backends',
    '/api/%61dmin/knocs',
    '/api/%61dmin/acls',
    '/api/%61dmin/groups',
    '/api/%61dmin/settings',
    '/api/%61dmin/settings/authentication',
    '/api/%61dmin/settings/license',
    '/%61pi/admin/agents',
    '/%61pi/admin/settings',
    '/api/admin/%61gents',
    '/api//admin/agents',
    '/api/admin%2Fagents',
  ])('refuses GET %s without a cookie and shows no agent token', async (url) => {
    const agent = await givenAgent(t.ctx);
    const response = await t.app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.badRequest, Extra: expect.stringMatching(/^path: /) as string });
    expect(response.body).not.toContain(agent.token);
  });

  it('refuses a cross-origin POST /%61pi/admin/users with an admin cookie and creates no user', async () => {
    const admin = adminClient(t.app, await givenAdminSession(t), { origin: 'https://attacker.example' });
    const body = { Name: 'Mallory', UserName: 'mallory', AuthType: 'local', PlainPassword: 'password 123' };
    for (const url of ['/%61pi/admin/users', '/api/admin/users']) {
      const { status } = await admin.post(url, { ...body, ConfirmPassword: body.PlainPassword });
      expect([400, 403]).toContain(status);
    }
    const users = await admin.get<{ data: unknown[] }>('/api/admin/users');
    expect(users.body.data).toEqual([]);
  });

  it('refuses POST /%61pi/logout from a sibling origin and the session goes on', async () => {
    const cookie = await givenUserSession(t);
    for (const url of ['/%61pi/logout', '/api/logout']) {
      const response = await t.app.inject({
        method: 'POST',
        url,
        headers: { cookie, origin: 'http://sibling.localhost:80', 'sec-fetch-site': 'same-site' },
      });
      expect([400, 403]).toContain(response.statusCode);
    }
    expect((await t.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } })).statusCode).toBe(200);
  });

  it.each([
    ['a malformed escape', 'GET', '/api/admin/users/%/groups', 400],
    ['a malformed escape in a user route', 'DELETE', '/api/sessions/current/granted-acls/%zz', 400],
    ['an over-long parameter', 'DELETE', `/api/sessions/current/granted-acls/${'a'.repeat(400)}`, 414],
  ] as const)('answers %s in the envelope, without the framework or the path', async (_name, method, url, status) => {
    const admin = adminClient(t.app, await givenAdminSession(t), { origin: null });
    const { response } = await admin.request(method, url);
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ Err: ErrorCodes.badRequest, Extra: expect.stringMatching(/^path: /) as string });
    expect(response.body).not.toMatch(/FST_|statusCode|%zz|aaaa/);
  });

  it('answers an admin path too long for the router with the admin scope’s 401 to a stranger', async () => {
    const response = await t.app.inject({ method: 'GET', url: `/api/admin/users/${'a'.repeat(400)}/groups` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ Err: ErrorCodes.invalidSession });
  });
});

describe('over a real socket', () => {
  const lines: { level: number; msg: string; err?: { code?: string } }[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as never);
      done();
    },
  });
  const t = useTestApp('sqlite', { logger: pino({ level: 'debug' }, sink), listen: true });
  beforeEach(() => {
    lines.length = 0;
  });

  /** Sends `request` as written (no client library normalises it) and answers the raw reply. */
  async function rawExchange(request: string): Promise<string> {
    const { port } = new URL(t.baseUrl);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    let reply = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (reply += chunk));
    socket.write(request);
    await new Promise<void>((resolve) => socket.once('end', resolve));
    return reply;
  }

  it.each([
    '/api/admin/./agents',
    '/api/admin/x/../agents',
    '/api/admin/%2E/agents',
    '/api/x/%2E%2E/admin/agents',
    '/api\\admin/agents',
  ])('refuses the dot-segment spelling %s, which only a raw client sends', async (path) => {
    const agent = await givenAgent(t.ctx);
    const reply = await rawExchange(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toContain(`"Err":"${ErrorCodes.badRequest}"`);
    expect(reply).not.toContain(agent.token);
  });

  it('logs a client that hangs up at debug as a closed request, not as a failure or a store outage', async () => {
    const { port } = new URL(t.baseUrl);
    const socket = connect({ host: '127.0.0.1', port: Number(port) });
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    // Promises a body of 1000 bytes, sends 10, and goes away.
    socket.write(
      'POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"UserName',
    );
    socket.destroy();

    await waitFor(
      () => lines.some((line) => line.msg === 'client closed the request before it was answered'),
      'the hang-up in the log',
      5_000,
    );
    const closed = lines.find((line) => line.msg === 'client closed the request before it was answered');
    expect(closed?.level).toBe(20);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain(ErrorCodes.storeUnavailable);
  });
});
