import { X509Certificate } from 'node:crypto';
import { connect as netConnect, isIP } from 'node:net';
import { rootCertificates, type ConnectionOptions } from 'node:tls';
import { Client, ResultCodeError, SASL_MECHANISMS, type ClientOptions } from 'ldapts';
import { formatLdapEndpoint, LdapUrlError, parseLdapUrl, type LdapEndpoint } from './ldap-url.js';

export { describeLdapUrl } from './ldap-url.js';

/** The LDAP part of the authentication settings (LDAPURL, LDAPStartTLS, LDAPSkipVerifyTLS). */
export interface LdapSettings {
  /** ldap://, ldaps:// or ldapi:// (socket path percent-encoded); cldap:// is refused for binds. */
  url: string;
  /** Upgrade an ldap:// connection with StartTLS before binding. ldaps and ldapi ignore it. */
  startTls: boolean;
  /** Accept any server certificate. Off by default: the password crosses this connection. */
  skipVerifyTls: boolean;
  /** PEM certificates trusted in addition to Node's built-in roots. */
  caCertificates?: string[];
}

export type LdapBindResult = 'ok' | 'invalid-credentials';

/**
 * The directory could not answer the question: unreachable, TLS failure, timeout, unusable URL or an
 * unexpected answer. The message names the server (scheme, host, port only) and the reason; it is safe
 * to log and never contains the password.
 */
export class LdapUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Default limit for connecting (TCP and TLS) and, separately, for each LDAP operation. */
const DEFAULT_LDAP_TIMEOUT_MS = 5_000;

/** Longest DN we send; real DNs are far shorter, and this bounds what a stored value can make us send. */
export const MAX_DN_LENGTH = 1024;

/**
 * LDAP result codes that mean "these credentials do not sign in", whatever the server's reason:
 * 32 noSuchObject, 34 invalidDNSyntax, 48 inappropriateAuthentication, 49 invalidCredentials (also
 * locked or expired accounts on slapd ppolicy and Active Directory), 53 unwillingToPerform (inactivated
 * accounts on 389 Directory Server). Every other code is a server or configuration problem.
 */
const INVALID_CREDENTIAL_CODES: ReadonlySet<number> = new Set([32, 34, 48, 49, 53]);

/**
 * Checks `password` for the entry `dn` with an LDAP simple bind, on a fresh connection that is closed
 * before returning. It keeps no state and counts nothing, so callers can apply their own brute-force
 * accounting. An empty password, a password with NUL or an unusable DN is refused without connecting:
 * a simple bind with a DN and no password is an unauthenticated bind, which many servers accept as a
 * success, and a server written in C may cut a password at its first NUL (`\0anything` would then be
 * that empty password). Such a refusal is 'invalid-credentials', the answer a wrong password gets.
 *
 * @returns 'ok' when the server accepted the bind, 'invalid-credentials' when it refused these credentials.
 * @throws LdapUnavailableError when the server could not be asked or answered with something else.
 */
export async function ldapBind(
  settings: LdapSettings,
  dn: string,
  password: string,
  options: { timeoutMs?: number } = {},
): Promise<LdapBindResult> {
  if (!isUsablePassword(password) || !isUsableDn(dn)) return 'invalid-credentials';

  const endpoint = endpointOf(settings.url);
  checkCaCertificates(settings.caCertificates ?? []);
  const server = formatLdapEndpoint(endpoint);
  const timeoutMs = options.timeoutMs ?? DEFAULT_LDAP_TIMEOUT_MS;
  const client = new Client(clientOptions(endpoint, settings, timeoutMs));
  const attempt = (async () => {
    if (endpoint.scheme === 'ldap' && settings.startTls) {
      await client.startTLS(tlsOptions(endpoint.host, settings));
    }
    await client.bind(dn, password);
  })();
  // ldapts bounds connecting and each operation, but not the TLS handshake after StartTLS: a server that
  // stalls there must not hang a sign-in. So the whole exchange also gets a budget: connect plus operation.
  const deadline = Symbol('deadline');
  let timer: NodeJS.Timeout | undefined;
  try {
    const outcome = await Promise.race([
      attempt,
      new Promise<typeof deadline>((resolve) => (timer = setTimeout(() => resolve(deadline), 2 * timeoutMs))),
    ]);
    if (outcome === deadline) throw new LdapUnavailableError(`LDAP server ${server} did not answer in time`);
    return 'ok';
  } catch (error) {
    if (error instanceof LdapUnavailableError) throw error;
    if (error instanceof ResultCodeError && INVALID_CREDENTIAL_CODES.has(error.code)) return 'invalid-credentials';
    throw new LdapUnavailableError(`LDAP server ${server} unavailable: ${reasonOf(error, password, timeoutMs)}`);
  } finally {
    clearTimeout(timer);
    await close(client);
  }
}

/** A password we are willing to send: present and free of NUL (see ldapBind). */
function isUsablePassword(password: string): boolean {
  return typeof password === 'string' && password !== '' && !password.includes('\0');
}

/** A DN we are willing to send: present, bounded, no NUL, and not a word ldapts reads as a SASL mechanism. */
function isUsableDn(dn: string): boolean {
  return (
    typeof dn === 'string' &&
    dn.trim() !== '' &&
    dn.length <= MAX_DN_LENGTH &&
    !dn.includes('\0') &&
    // ldapts turns bind('EXTERNAL', …) into a SASL bind, which over ldapi authenticates the server process itself.
    !(SASL_MECHANISMS as readonly string[]).includes(dn)
  );
}

function endpointOf(url: string): LdapEndpoint {
  let endpoint: LdapEndpoint;
  try {
    endpoint = parseLdapUrl(url);
  } catch (error) {
    const reason = error instanceof LdapUrlError ? error.message : 'not a valid LDAP URL';
    throw new LdapUnavailableError(`LDAP URL unusable: ${reason}`);
  }
  if (endpoint.scheme === 'cldap') {
    throw new LdapUnavailableError(
      `LDAP server ${formatLdapEndpoint(endpoint)} cannot check passwords: CLDAP (connectionless LDAP over UDP, ` +
        'RFC 1798) supports only searches, so binding needs an ldap://, ldaps:// or ldapi:// URL',
    );
  }
  return endpoint;
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * Node silently ignores `ca` entries it cannot read, which would turn a pasted-wrong CA into a puzzling
 * "certificate not trusted". Each entry must be one or more PEM certificates, and nothing else.
 */
function checkCaCertificates(pems: string[]): void {
  pems.forEach((pem, index) => {
    const blocks = typeof pem === 'string' ? (pem.match(PEM_CERTIFICATE) ?? []) : [];
    const readable = blocks.every((block) => {
      try {
        new X509Certificate(block);
        return true;
      } catch {
        return false;
      }
    });
    if (blocks.length === 0 || !readable) {
      throw new LdapUnavailableError(`LDAP CA certificate ${index + 1} is not a PEM certificate`);
    }
  });
}

function clientOptions(endpoint: LdapEndpoint, settings: LdapSettings, timeoutMs: number): ClientOptions {
  const common = { timeout: timeoutMs, connectTimeout: timeoutMs };
  switch (endpoint.scheme) {
    case 'ldapi': {
      const { socketPath } = endpoint;
      // ldapts only speaks TCP; its connection factory lets us hand it the local socket instead.
      return { ...common, url: 'ldap://localhost', createConnection: () => netConnect({ path: socketPath }) };
    }
    case 'ldaps':
      return { ...common, url: formatLdapEndpoint(endpoint), tlsOptions: tlsOptions(endpoint.host, settings) };
    default:
      // No tlsOptions here: ldapts would then open TLS from the start. StartTLS gets them instead.
      return { ...common, url: formatLdapEndpoint(endpoint) };
  }
}

function tlsOptions(host: string, settings: LdapSettings): ConnectionOptions {
  const extraCas = settings.caCertificates ?? [];
  return {
    host,
    // SNI takes names only; the certificate is still checked against an IP address through `host`.
    ...(isIP(host) === 0 ? { servername: host } : {}),
    rejectUnauthorized: !settings.skipVerifyTls,
    minVersion: 'TLSv1.2',
    // Giving `ca` replaces Node's roots, so keep them and add the configured ones.
    ...(extraCas.length > 0 ? { ca: [...rootCertificates, ...extraCas] } : {}),
  };
}

/** Unbinds and closes, bounded in time, ignoring errors: the result is already decided. */
async function close(client: Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([client.unbind(), new Promise((resolve) => (timer = setTimeout(resolve, 1_000)))]);
  } catch {
    // The connection is gone either way.
  } finally {
    clearTimeout(timer);
  }
}

/** Node error codes that mean the server's certificate was not accepted. */
const CERTIFICATE_ERROR = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/;

/** One short, log-safe line saying why, with the password removed should a server ever echo it. */
function reasonOf(error: unknown, password: string, timeoutMs: number): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  let reason: string;
  if (error instanceof ResultCodeError) {
    reason = `the server answered the bind with result code ${error.code}: ${message}`;
  } else if (typeof code === 'string' && CERTIFICATE_ERROR.test(code)) {
    reason = `TLS certificate not accepted (${code}: ${message})`;
  } else if (typeof code === 'string' && /^ERR_(SSL|TLS)_/.test(code)) {
    reason = `TLS failed (${code}: ${message})`;
  } else if (typeof code === 'string') {
    reason = `connection failed (${code}: ${message})`;
  } else if (message === 'Connection timeout') {
    reason = `no connection within ${timeoutMs} ms`;
  } else if (/Operation timed out/.test(message)) {
    reason = `no answer within ${timeoutMs} ms`;
  } else {
    reason = message;
  }
  return redact(reason.replace(/\s+/g, ' ').trim(), password).slice(0, 400);
}

function redact(text: string, password: string): string {
  return text.split(password).join('[redacted]');
}
