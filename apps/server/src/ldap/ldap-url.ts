import { isIP } from 'node:net';

/** Where libldap on Debian puts slapd's local socket; `ldapi:///` (no path) means this socket. */
const DEFAULT_LDAPI_SOCKET = '/var/run/slapd/ldapi';

/** The settings' LDAPURL schemes (administration spec: ldap, ldaps, ldapi or cldap). */
const LDAP_URL_SCHEMES = ['ldap', 'ldaps', 'ldapi', 'cldap'] as const;

/** Where an LDAP URL points: a TCP host and port, or a local socket for ldapi. */
export type LdapEndpoint =
  { scheme: 'ldap' | 'ldaps' | 'cldap'; host: string; port: number } | { scheme: 'ldapi'; socketPath: string };

/** A URL that is not a usable LDAP URL. The message never repeats the URL, which may hold a secret. */
export class LdapUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Reads an LDAP URL as the LDAPURL setting holds it. Only the scheme, host and port (or the socket
 * path of ldapi) matter for a bind; an RFC 4516 DN, attributes or filter after them are ignored.
 * ldapi takes its socket path percent-encoded in the host part: `ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi`.
 */
export function parseLdapUrl(url: string): LdapEndpoint {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new LdapUrlError('not a valid LDAP URL (expected for example ldaps://ldap.example.com:636)');
  }
  const scheme = parsed.protocol.slice(0, -1);
  if (!isLdapScheme(scheme)) {
    throw new LdapUrlError(`unsupported scheme ${JSON.stringify(scheme)}: use ldap, ldaps, ldapi or cldap`);
  }
  // Before any use of the host: a user name or password there would end up in logs.
  if (parsed.username !== '' || parsed.password !== '') {
    throw new LdapUrlError('an LDAP URL must not contain a user name or password');
  }

  if (scheme === 'ldapi') {
    // `ldapi:///var/run/slapd/ldapi` reads as the default socket plus a DN; say what was meant instead.
    if (parsed.hostname === '' && parsed.pathname.slice(1).includes('/')) {
      throw new LdapUrlError('percent-encode the ldapi socket path in the host part: ldapi://%2Fpath%2Fto%2Fsocket');
    }
    return { scheme, socketPath: socketPathOf(parsed.hostname) };
  }

  if (parsed.port === '0') throw new LdapUrlError('port 0 is not a valid LDAP port');
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
  const defaultPort = scheme === 'ldaps' ? 636 : 389;
  return { scheme, host, port: parsed.port === '' ? defaultPort : Number(parsed.port) };
}

/**
 * A form of the URL that is safe to log and show: scheme, host and port (or socket) only, never a user
 * name, password or anything after the host. An unreadable URL is described as such, not repeated.
 */
export function describeLdapUrl(url: string): string {
  try {
    return formatLdapEndpoint(parseLdapUrl(url));
  } catch {
    return '(invalid LDAP URL)';
  }
}

/** The canonical URL of an endpoint: `ldaps://host:636`, `ldap://[::1]:389`, `ldapi://%2Frun%2Fldapi`. */
export function formatLdapEndpoint(endpoint: LdapEndpoint): string {
  if (endpoint.scheme === 'ldapi') return `ldapi://${encodeURIComponent(endpoint.socketPath)}`;
  const host = isIP(endpoint.host) === 6 ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.scheme}://${host}:${endpoint.port}`;
}

function isLdapScheme(scheme: string): scheme is (typeof LDAP_URL_SCHEMES)[number] {
  return (LDAP_URL_SCHEMES as readonly string[]).includes(scheme);
}

function socketPathOf(encodedHost: string): string {
  if (encodedHost === '') return DEFAULT_LDAPI_SOCKET;
  let socketPath: string;
  try {
    socketPath = decodeURIComponent(encodedHost);
  } catch {
    throw new LdapUrlError('the ldapi socket path is not valid percent-encoding');
  }
  if (!socketPath.startsWith('/') || socketPath.includes('\0')) {
    throw new LdapUrlError(
      'an ldapi URL needs an absolute socket path, percent-encoded: ldapi://%2Fpath%2Fto%2Fsocket',
    );
  }
  return socketPath;
}
