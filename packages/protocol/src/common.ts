import { z } from 'zod';
import { ErrorCodes } from './errors.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './limits.js';
import { adminUrlProblem, isHostOrAddress, type AdminUrlOptions } from './endpoint.js';
import { parseIp } from './net.js';

/** Record ids are UUIDs (v7) on the wire. */
export const Id = z.string().min(1).max(64);

/** The `{id}` path parameter of every entity route. */
export const IdParams = z.object({ id: Id });

/** An ISO 8601 instant with its offset, e.g. 2026-11-22T09:00:00.000Z. */
export const IsoDateTime = z.iso.datetime({ offset: true });

/** A password being set: 8–64 characters (the spec's message). */
export const NewPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, ErrorCodes.passwordLength)
  .max(PASSWORD_MAX_LENGTH, ErrorCodes.passwordLength);

/**
 * No C0 or C1 control character (NUL, newline, escape …): none belongs in a name, a log line shows
 * them falsely, and PostgreSQL cannot store a NUL at all.
 */
// eslint-disable-next-line no-control-regex
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]*$/;
export const NO_CONTROL_CHARACTERS_MESSAGE = 'must not contain control characters';

/** A required display or sign-in name. */
export const RequiredName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE);

/**
 * A URL an admin configures (see endpoint.ts): one of `schemes`, no credentials, a host name or IP
 * address, no whitespace. A wrong scheme (or no URL at all) answers with the field's own `message`
 * (the spec's, e.g. 'URL must be http or https'); credentials with err.urlCredentialsNotAllowed;
 * anything else with err.urlInvalid.
 */
export function adminUrl(schemes: readonly string[], message: string, options: AdminUrlOptions = {}) {
  return z
    .string()
    .trim()
    .max(2048, ErrorCodes.urlInvalid)
    .superRefine((value, ctx) => {
      const problem = adminUrlProblem(value, schemes, options);
      if (problem === null) return;
      const codes = {
        scheme: message,
        credentials: ErrorCodes.urlCredentialsNotAllowed,
        invalid: ErrorCodes.urlInvalid,
      };
      ctx.addIssue({ code: 'custom', message: codes[problem] });
    });
}

/** An http(s) URL, or the spec's 'URL must be http or https' (see adminUrl for the other rules). */
export const HttpUrl = adminUrl(['http', 'https'], ErrorCodes.urlMustBeHttp);
/** An LDAP server URL (ldap, ldaps, ldapi, cldap), or 'URL must be ldap or ldaps'. */
export const LdapUrl = adminUrl(['ldap', 'ldaps', 'ldapi', 'cldap'], ErrorCodes.urlMustBeLdap, {
  socketSchemes: ['ldapi'],
});
/**
 * A GELF listener: udp, tcp or tls, a host and a port, nothing else (no credentials, path or query);
 * otherwise 'URL must be udp, tcp, or tls'.
 */
export const GelfUrl = adminUrl(['udp', 'tcp', 'tls'], ErrorCodes.urlMustBeGelf).refine((value) => {
  try {
    const url = new URL(value);
    const port = Number(url.port);
    const bare = url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    return bare && url.hostname !== '' && (url.pathname === '' || url.pathname === '/') && port >= 1 && port <= 65535;
  } catch {
    return false;
  }
}, ErrorCodes.urlMustBeGelf);

/**
 * A vendor device's host: a host name or IP address, optionally with `:port` (IPv6 in brackets
 * then), nothing else (no scheme, path, credentials or spaces), or err.invalidHostname.
 */
export const HostNameOrAddress = z
  .string()
  .trim()
  .max(300, ErrorCodes.invalidHostname)
  .refine((value) => isHostOrAddress(value, 'optional'), ErrorCodes.invalidHostname);

/** Either empty (the feature is off) or a valid value of `schema`. */
export function emptyOr<T extends z.ZodType<string>>(schema: T) {
  return z.union([z.literal(''), schema]);
}

/** True for an IPv4 address written the strict way: four parts 0–255, no leading zeros (see net.ts). */
export function isIpv4(value: string): boolean {
  return !value.includes(':') && parseIp(value) !== null;
}

/** True for an address written as IPv6 (an IPv4-mapped one included; see net.ts), without a zone id. */
export function isIpv6(value: string): boolean {
  return value.includes(':') && parseIp(value) !== null;
}

/** An IPv4 CIDR (mask 0–32) or IPv6 CIDR (mask 0–128), or err.invalidCidr. */
export const Cidr = z
  .string()
  .trim()
  .refine((value) => {
    const [address = '', mask, ...rest] = value.split('/');
    if (mask === undefined || rest.length > 0 || !/^\d{1,3}$/.test(mask)) return false;
    if (isIpv4(address)) return Number(mask) <= 32;
    return isIpv6(address) && Number(mask) <= 128;
  }, ErrorCodes.invalidCidr);
