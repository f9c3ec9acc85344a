import { existsSync } from 'node:fs';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ldapBind, LdapUnavailableError, type LdapSettings } from '../src/ldap/ldap-bind.js';
import { missingSlapd, requireSlapd, startSlapd, type Slapd } from './support/slapd.js';

const ALICE_PASSWORD = 'Correct-Horse-Battery-9';
/** Exercises UTF-8 on the wire and base64 in the seed LDIF. */
const ZOË_PASSWORD = ' pä$$ wörd, "=\\ ';

let slapd: Slapd | undefined;

/** The running server; only called by tests that requireSlapd() let through. */
function server(): Slapd {
  if (slapd === undefined) throw new Error('slapd did not start');
  return slapd;
}

const plain = (extra: Partial<LdapSettings> = {}): LdapSettings => ({
  url: server().ldapUrl,
  startTls: false,
  skipVerifyTls: false,
  ...extra,
});
const ldaps = (extra: Partial<LdapSettings> = {}) => plain({ url: server().ldapsUrl, ...extra });
const trusted = () => ({ caCertificates: [server().caCertificate] });

/** Expects LdapUnavailableError with a message matching `pattern` and never holding the password. */
async function expectUnavailable(attempt: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await attempt.then(
    (result) => new Error(`expected LdapUnavailableError, got ${JSON.stringify(result)}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LdapUnavailableError);
  const { message } = error as Error;
  expect(message).toMatch(pattern);
  expect(message).not.toContain(ALICE_PASSWORD);
  expect(JSON.stringify(error)).not.toContain(ALICE_PASSWORD);
}

// Starting slapd takes well under a second; the TLS cases add a few handshakes each.
describe('ldapBind against a real slapd', { timeout: 30_000 }, () => {
  beforeAll(async () => {
    if (missingSlapd() !== null) return;
    slapd = await startSlapd({
      users: [
        { uid: 'alice', password: ALICE_PASSWORD, cn: 'Alice Example' },
        { uid: 'zoë', password: ZOË_PASSWORD },
        { uid: 'nopassword', password: '' },
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await slapd?.stop();
  });
  beforeEach((context) => requireSlapd(context));

  describe('over ldap://', () => {
    it('accepts the right password', async () => {
      expect(await ldapBind(plain(), server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });

    it('accepts a non-ASCII password with spaces and DN special characters', async () => {
      expect(await ldapBind(plain(), server().dnOf('zoë'), ZOË_PASSWORD)).toBe('ok');
    });

    it.each([
      ['a wrong password', 'alice', 'Correct-Horse-Battery-8'],
      ['the right password in the wrong case', 'alice', ALICE_PASSWORD.toLowerCase()],
      ['an unknown DN', 'nobody', ALICE_PASSWORD],
      ['an entry that has no password', 'nopassword', ALICE_PASSWORD],
    ])('refuses %s as invalid credentials', async (_name, uid, password) => {
      expect(await ldapBind(plain(), server().dnOf(uid), password)).toBe('invalid-credentials');
    });

    it('refuses a DN outside the directory as invalid credentials', async () => {
      expect(await ldapBind(plain(), 'uid=alice,dc=elsewhere,dc=test', ALICE_PASSWORD)).toBe('invalid-credentials');
    });

    it('refuses an empty password, which slapd would treat as an unauthenticated bind', async () => {
      expect(await ldapBind(plain(), server().dnOf('alice'), '')).toBe('invalid-credentials');
    });
  });

  describe('over ldaps://', () => {
    it('accepts the right password when the CA is given', async () => {
      expect(await ldapBind(ldaps(trusted()), server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });

    it('verifies the certificate against a host name as well as an IP address', async () => {
      const url = server().ldapsUrl.replace('127.0.0.1', 'localhost');
      expect(await ldapBind(ldaps({ url, ...trusted() }), server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });

    it('refuses a wrong password as invalid credentials', async () => {
      expect(await ldapBind(ldaps(trusted()), server().dnOf('alice'), 'wrong-password')).toBe('invalid-credentials');
    });

    it('is unavailable when the certificate is not trusted, and says so', async () => {
      await expectUnavailable(
        ldapBind(ldaps(), server().dnOf('alice'), ALICE_PASSWORD),
        /^LDAP server ldaps:\/\/127\.0\.0\.1:\d+ unavailable: TLS certificate not accepted \(SELF_SIGNED_CERT_IN_CHAIN: /,
      );
    });

    it('accepts an untrusted certificate only when verification is skipped', async () => {
      expect(await ldapBind(ldaps({ skipVerifyTls: true }), server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });

    it('accepts a CA given as a bundle with other certificates', async () => {
      const bundle = `${rootCertificates[0] ?? ''}\n${server().caCertificate}`;
      const settings = ldaps({ caCertificates: [bundle] });
      expect(await ldapBind(settings, server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });
  });

  describe('over ldap:// with StartTLS', () => {
    it('accepts the right password when the CA is given', async () => {
      const settings = plain({ startTls: true, ...trusted() });
      expect(await ldapBind(settings, server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });

    it('refuses a wrong password as invalid credentials', async () => {
      const settings = plain({ startTls: true, ...trusted() });
      expect(await ldapBind(settings, server().dnOf('alice'), 'wrong-password')).toBe('invalid-credentials');
    });

    it('is unavailable when the certificate is not trusted', async () => {
      await expectUnavailable(
        ldapBind(plain({ startTls: true }), server().dnOf('alice'), ALICE_PASSWORD),
        /^LDAP server ldap:\/\/127\.0\.0\.1:\d+ unavailable: TLS certificate not accepted/,
      );
    });

    it('accepts an untrusted certificate only when verification is skipped', async () => {
      const settings = plain({ startTls: true, skipVerifyTls: true });
      expect(await ldapBind(settings, server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });
  });

  describe('over ldapi://', () => {
    it('accepts the right password on the local socket', async () => {
      expect(await ldapBind(plain({ url: server().ldapiUrl }), server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });

    it('refuses a wrong password as invalid credentials', async () => {
      const result = await ldapBind(plain({ url: server().ldapiUrl }), server().dnOf('alice'), 'wrong-password');
      expect(result).toBe('invalid-credentials');
    });

    it('ignores StartTLS on the local socket', async () => {
      const settings = plain({ url: server().ldapiUrl, startTls: true });
      expect(await ldapBind(settings, server().dnOf('alice'), ALICE_PASSWORD)).toBe('ok');
    });
  });

  it.each([
    ['ldaps:// to the plain port', (slapd: Slapd) => slapd.ldapUrl.replace('ldap://', 'ldaps://')],
    ['ldap:// to the TLS port', (slapd: Slapd) => slapd.ldapsUrl.replace('ldaps://', 'ldap://')],
  ])('reports %s as unavailable, not as wrong credentials', async (_name, url) => {
    const settings = plain({ url: url(server()), ...trusted() });
    await expectUnavailable(
      ldapBind(settings, server().dnOf('alice'), ALICE_PASSWORD),
      /^LDAP server \S+ unavailable: /,
    );
  });

  it('refuses cldap:// with the reason, even though the server is there', async () => {
    const url = server().ldapUrl.replace('ldap://', 'cldap://');
    await expectUnavailable(
      ldapBind(plain({ url }), server().dnOf('alice'), ALICE_PASSWORD),
      /CLDAP \(connectionless LDAP over UDP, RFC 1798\) supports only searches, so binding needs an ldap:\/\/, ldaps:\/\/ or ldapi:\/\/ URL/,
    );
  });

  it('answers concurrent binds each on their own connection', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        ldapBind(plain(), server().dnOf('alice'), index % 2 === 0 ? ALICE_PASSWORD : 'wrong-password'),
      ),
    );
    expect(results.filter((result) => result === 'ok')).toHaveLength(10);
    expect(results.filter((result) => result === 'invalid-credentials')).toHaveLength(10);
  });
});

describe('the slapd harness', { timeout: 30_000 }, () => {
  beforeEach((context) => requireSlapd(context));

  it('stops slapd and removes its files, so the ports stop answering', async () => {
    const instance = await startSlapd({ users: [{ uid: 'carol', password: 'Carol-Password-1' }] });
    const settings = { url: instance.ldapUrl, startTls: false, skipVerifyTls: false };
    expect(await ldapBind(settings, instance.dnOf('carol'), 'Carol-Password-1')).toBe('ok');
    await instance.stop();
    await instance.stop();
    await expect(ldapBind(settings, instance.dnOf('carol'), 'Carol-Password-1')).rejects.toThrow(/ECONNREFUSED/);
    const socketPath = decodeURIComponent(instance.ldapiUrl.slice('ldapi://'.length));
    expect(existsSync(path.dirname(socketPath))).toBe(false);
  });
});
