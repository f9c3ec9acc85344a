import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { freePort } from '@postern/test-support';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin, givenUser } from '../test-support/factories.js';
import { writeSetting } from '../settings/settings.js';

const DN = 'uid=ada,ou=people,dc=postern,dc=test';

/**
 * Sign-in of LDAP accounts with credentials that must never reach the directory. The directory here
 * is a listener that counts connections (a bind needs one); binds against a real slapd are in
 * test/ldap-login.test.ts.
 */
describe('LDAP sign-in refused before any bind (sqlite)', () => {
  const t = useTestApp('sqlite');
  let server: Server;
  let directoryUrl: string;
  const sockets: Socket[] = [];
  let connections = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections += 1;
      sockets.push(socket);
      socket.destroy();
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    directoryUrl = `ldap://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(async () => {
    connections = 0;
    await writeSetting(t.ctx.db, 'LDAPURL', directoryUrl, t.clock.now());
  });

  const login = (url: string, UserName: string, Password: string) =>
    t.app.inject({ method: 'POST', url, payload: { UserName, Password } });

  it.each([
    ['starts with NUL', '\u0000directory secret'],
    ['is only NUL', '\u0000'],
    ['has NUL inside', 'directory\u0000secret'],
    ['ends with NUL', 'directory secret\u0000'],
  ])('refuses a user whose password %s as malformed, without a bind', async (_c, password) => {
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: DN });
    const response = await login('/api/login', 'ada', password);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      Err: ErrorCodes.badRequest,
      Extra: 'Password: must not contain the NUL character',
    });
    expect(connections).toBe(0);
  });

  it('refuses an admin whose password has NUL the same way', async () => {
    await givenAdmin(t.ctx, { userName: 'root-ada', authType: 'LDAP', passwordHash: null, ldapDn: DN });
    const response = await login('/api/admin/login', 'root-ada', '\u0000anything');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      Err: ErrorCodes.badRequest,
      Extra: 'Password: must not contain the NUL character',
    });
    expect(connections).toBe(0);
  });

  it('still asks the directory for a password without NUL', async () => {
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: DN });
    // The listener hangs up: the directory could not answer, which is not the password's fault.
    const response = await login('/api/login', 'ada', 'directory secret');
    expect(response.json()).toEqual({ Err: ErrorCodes.ldapUnavailable });
    expect(connections).toBe(1);
  });

  // PostgreSQL cannot hold a NUL, so only SQLite can have such an account (made before names were checked).
  it('never binds a stored DN that holds NUL', async () => {
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: `${DN}\u0000` });
    const response = await login('/api/login', 'ada', 'directory secret');
    expect(response.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
    expect(connections).toBe(0);
  });

  it.each([
    ['/api/login', 'ada\u0000'],
    ['/api/login', 'ada\u0000uid=admin'],
    ['/api/admin/login', 'root\u0000'],
  ])('refuses a user name with NUL on %s as malformed, without a bind or a store error', async (url, userName) => {
    await givenUser(t.ctx, { userName: 'ada', authType: 'LDAP', passwordHash: null, ldapDn: DN });
    const response = await login(url, userName, 'directory secret');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      Err: ErrorCodes.badRequest,
      Extra: 'UserName: must not contain the NUL character',
    });
    expect(connections).toBe(0);
  });
});
