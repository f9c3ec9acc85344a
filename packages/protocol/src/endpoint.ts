import { parseIp } from './net.js';

/*
 * Where an administrator points Postern: vendor API hosts and URLs, IdP metadata, the public URL,
 * the LDAP server, GELF. These values are checked when they are saved, not only when they are used,
 * so that a stored value always means one thing to every parser that later reads it. The rules:
 *
 * - no whitespace or control character anywhere (the WHATWG URL parser silently drops tabs and
 *   newlines, so `https://fw.example\n.evil` would reach a different host than it shows), and no
 *   backslash (which the same parser reads as `/` in http URLs);
 * - the URL's scheme is one the field allows, followed by `//` and an authority;
 * - no credentials (`user:password@`): secrets belong in their own write-only fields, and an `@`
 *   hides the real host from a reader (`https://fw.example.com@evil.example`);
 * - the host is an IP address written the strict way (net.ts: no `010.0.0.1`, which many resolvers
 *   read as octal 8.0.0.1, no zone id) or a DNS host name of letters, digits and hyphens; a name
 *   whose last label is numeric (`1.2.3.256`, `0x7f`) is refused, because URL parsers read it as an
 *   IPv4 address; an optional port is 1–65535.
 */

/** Why a URL is refused: its scheme, credentials in it, or anything else (see above). */
export type AdminUrlProblem = 'scheme' | 'credentials' | 'invalid';

/** Whitespace (Unicode too), C0 and C1 controls, invisible format characters, and the backslash. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_CHARACTER = /[\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2060\ufeff\\]/u;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;
/** A last label URL parsers take for (part of) an IPv4 address: decimal, octal or 0x hex. */
const NUMERIC_LABEL = /^(?:\d+|0x[0-9A-Fa-f]*)$/i;
const PORT = /^\d{1,5}$/;
const MAX_HOST_NAME_LENGTH = 253;

/** True for a DNS host name: labels of 1–63 letters, digits and inner hyphens, at most 253 characters. */
export function isHostName(text: string): boolean {
  if (text.length === 0 || text.length > MAX_HOST_NAME_LENGTH) return false;
  const labels = text.split('.');
  if (!labels.every((label) => LABEL.test(label))) return false;
  return !NUMERIC_LABEL.test(labels.at(-1) ?? '');
}

/**
 * True for a host an admin may name: an IPv4 address, an IPv6 address (bare, or in brackets), or a
 * host name, optionally followed by `:port` (IPv6 then in brackets). `port` says whether a port is
 * allowed, required or forbidden.
 */
export function isHostOrAddress(text: string, port: 'optional' | 'required' | 'none' = 'optional'): boolean {
  if (FORBIDDEN_CHARACTER.test(text)) return false;
  let host = text;
  let portText: string | null = null;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close === -1) return false;
    host = text.slice(1, close);
    const rest = text.slice(close + 1);
    if (rest !== '') {
      if (!rest.startsWith(':')) return false;
      portText = rest.slice(1);
    }
    if (!host.includes(':') || parseIp(host) === null) return false;
  } else if (text.split(':').length > 2) {
    // More than one colon: a bare IPv6 address, which cannot carry a port without brackets.
    return port !== 'required' && parseIp(text) !== null;
  } else {
    const colon = text.indexOf(':');
    if (colon !== -1) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
    if (parseIp(host) === null && !isHostName(host)) return false;
  }
  if (portText === null) return port !== 'required';
  if (port === 'none' || !PORT.test(portText)) return false;
  const number = Number(portText);
  return number >= 1 && number <= 65535;
}

export interface AdminUrlOptions {
  /**
   * Schemes whose "host" is a percent-encoded socket path (`ldapi://%2Fvar%2Frun%2Fslapd%2Fldapi`):
   * it must be present and free of credentials, but is no host name.
   */
  socketSchemes?: readonly string[];
}

/**
 * Why `text` is not a URL an admin may configure with one of `schemes` (lower case), or null when it
 * is one. See the rules at the top of this file.
 */
export function adminUrlProblem(
  text: string,
  schemes: readonly string[],
  options: AdminUrlOptions = {},
): AdminUrlProblem | null {
  const scheme = SCHEME.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined || !schemes.includes(scheme)) return 'scheme';
  if (FORBIDDEN_CHARACTER.test(text)) return 'invalid';
  const afterScheme = text.slice(scheme.length + 1);
  if (!afterScheme.startsWith('//')) return 'invalid';
  const rest = afterScheme.slice(2);
  const end = rest.search(/[/?#]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  if (authority.includes('@')) return 'credentials';
  const socket = options.socketSchemes?.includes(scheme) === true;
  if (socket ? authority === '' : !isHostOrAddress(authority, 'optional')) return 'invalid';
  try {
    const url = new URL(text);
    if (url.username !== '' || url.password !== '') return 'credentials';
  } catch {
    return 'invalid';
  }
  return null;
}
