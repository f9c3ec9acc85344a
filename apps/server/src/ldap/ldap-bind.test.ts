import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, waitFor } from '@postern/test-support';
import { ldapBind, LdapUnavailableError, MAX_DN_LENGTH, type LdapSettings } from './ldap-bind.js';

const DN = 'uid=alice,ou=people,dc=postern,dc=test';
const PASSWORD = 'Correct-Horse-Battery-9';

/**
 * The BER of a successful ExtendedResponse to the request in `request` (an LDAPMessage whose short
 * messageID follows the outer header): LDAPMessage { messageID, extendedResp { resultCode success,
 * matchedDN "", diagnosticMessage "" } }. Enough for a client to start its TLS handshake.
 */
function startTlsAccepted(request: Buffer): Buffer {
  const messageId = request.subarray(2, 2 + 2 + (request[3] ?? 0));
  const body = Buffer.concat([messageId, Buffer.from('78070a010004000400', 'hex')]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

/**
 * A TCP listener on loopback that counts connections and then: closes them, stays silent, or accepts
 * StartTLS and then stays silent through the TLS handshake.
 */
async function listener(
  behaviour: 'close' | 'silent' | 'accept-starttls',
): Promise<{ url: string; connections: () => number }> {
  const port = await freePort();
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    sockets.push(socket);
    if (behaviour === 'close') socket.destroy();
    if (behaviour === 'accept-starttls')
      socket.once('data', (request: Buffer) => socket.write(startTlsAccepted(request)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `ldap://127.0.0.1:${port}`, connections: () => connections };
}

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const settings = (url: string, extra: Partial<LdapSettings> = {}): LdapSettings => ({
  url,
  startTls: false,
  skipVerifyTls: false,
  ...extra,
});

describe('LDAP bind without a directory', { timeout: 20_000 }, () => {
  it('refuses an empty password without connecting, where an unauthenticated bind could succeed', async () => {
    const server = await listener('close');
    expect(await ldapBind(settings(server.url), DN, '')).toBe('invalid-credentials');
    expect(server.connections()).toBe(0);

    // The same call with a password does connect: the listener above is really reachable.
    await expect(ldapBind(settings(server.url), DN, PASSWORD)).rejects.toThrow(LdapUnavailableError);
    await waitFor(() => server.connections() === 1, 'the one connection with a password');
  });

  it.each([
    ['a password that starts with NUL', '\0whatever'],
    ['a password with NUL inside', 'Correct-Horse\0Battery-9'],
    ['a password that is only NUL', '\0'],
  ])('refuses %s without connecting, as a wrong password', async (_name, password) => {
    const server = await listener('close');
    expect(await ldapBind(settings(server.url), DN, password)).toBe('invalid-credentials');
    expect(server.connections()).toBe(0);
  });

  it.each([
    ['an empty DN', ''],
    ['a blank DN', '   '],
    ['a DN longer than the limit', `uid=${'a'.repeat(MAX_DN_LENGTH)},dc=test`],
    ['a DN with NUL', 'uid=alice\0,dc=test'],
    ['a SASL mechanism name, which ldapts would send as a SASL bind', 'EXTERNAL'],
  ])('refuses %s without connecting', async (_name, dn) => {
    const server = await listener('close');
    expect(await ldapBind(settings(server.url), dn, PASSWORD)).toBe('invalid-credentials');
    expect(server.connections()).toBe(0);
  });

  it('accepts a DN of exactly the limit (and then needs the server)', async () => {
    const server = await listener('close');
    const dn = `uid=${'a'.repeat(MAX_DN_LENGTH - 'uid=,dc=test'.length)},dc=test`;
    expect(dn).toHaveLength(MAX_DN_LENGTH);
    await expect(ldapBind(settings(server.url), dn, PASSWORD)).rejects.toThrow(LdapUnavailableError);
  });

  it('explains that cldap cannot bind, without connecting', async () => {
    const error = await ldapBind(settings('cldap://127.0.0.1:389'), DN, PASSWORD).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LdapUnavailableError);
    expect((error as Error).message).toBe(
      'LDAP server cldap://127.0.0.1:389 cannot check passwords: CLDAP (connectionless LDAP over UDP, RFC 1798) ' +
        'supports only searches, so binding needs an ldap://, ldaps:// or ldapi:// URL',
    );
  });

  it.each([
    ['https://ldap.example.com', 'LDAP URL unusable: unsupported scheme "https": use ldap, ldaps, ldapi or cldap'],
    [
      'ldap://cn=admin:hunter2@ldap.example.com',
      'LDAP URL unusable: an LDAP URL must not contain a user name or password',
    ],
    ['', 'LDAP URL unusable: not a valid LDAP URL (expected for example ldaps://ldap.example.com:636)'],
  ])('reports the unusable URL %j as unavailable', async (url, message) => {
    await expect(ldapBind(settings(url), DN, PASSWORD)).rejects.toThrow(new LdapUnavailableError(message));
  });

  it.each([
    ['not PEM at all', 'not a certificate'],
    [
      'a PEM block that is not a certificate',
      '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----',
    ],
    ['a private key', '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----'],
  ])('refuses a CA certificate that is %s before connecting', async (_name, pem) => {
    const server = await listener('close');
    const url = server.url.replace('ldap://', 'ldaps://');
    await expect(ldapBind(settings(url, { caCertificates: [pem] }), DN, PASSWORD)).rejects.toThrow(
      new LdapUnavailableError('LDAP CA certificate 1 is not a PEM certificate'),
    );
    expect(server.connections()).toBe(0);
  });

  it('reports a closed port as unavailable at once (refused, not timed out), naming the server', async () => {
    const port = await freePort();
    // A timeout longer than this test's own: only the refusal itself can end the call in time.
    const error = await ldapBind(settings(`ldap://127.0.0.1:${port}`), DN, PASSWORD, { timeoutMs: 60_000 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LdapUnavailableError);
    expect((error as Error).message).toMatch(
      new RegExp(`^LDAP server ldap://127\\.0\\.0\\.1:${port} unavailable: connection failed \\(ECONNREFUSED`),
    );
  });

  it('reports a missing ldapi socket as unavailable', async () => {
    const url = `ldapi://${encodeURIComponent('/nonexistent/postern/ldapi')}`;
    await expect(ldapBind(settings(url), DN, PASSWORD)).rejects.toThrow(
      /^LDAP server ldapi:\/\/%2Fnonexistent%2Fpostern%2Fldapi unavailable: connection failed \(ENOENT/,
    );
  });

  it('gives up on a server that accepts the connection and never answers, within the timeout', async () => {
    const server = await listener('silent');
    const error = await ldapBind(settings(server.url), DN, PASSWORD, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LdapUnavailableError);
    expect((error as Error).message).toMatch(/unavailable: no answer within 300 ms$/);
  });

  it('gives up on a StartTLS request that is never answered, within the timeout', async () => {
    const server = await listener('silent');
    const error = await ldapBind(settings(server.url, { startTls: true }), DN, PASSWORD, { timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LdapUnavailableError);
    expect((error as Error).message).toMatch(/unavailable: no answer within 300 ms$/);
  });

  it('gives up on a TLS handshake that stalls after StartTLS was accepted, which ldapts does not time', async () => {
    const server = await listener('accept-starttls');
    const error = await ldapBind(settings(server.url, { startTls: true }), DN, PASSWORD, { timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LdapUnavailableError);
    expect((error as Error).message).toBe(`LDAP server ${server.url} did not answer in time`);
  });

  it('gives up on an ldaps server that never completes the TLS handshake, within the timeout', async () => {
    const server = await listener('silent');
    const url = server.url.replace('ldap://', 'ldaps://');
    const error = await ldapBind(settings(url), DN, PASSWORD, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LdapUnavailableError);
    expect((error as Error).message).toMatch(/unavailable: no connection within 300 ms$/);
  });
});
