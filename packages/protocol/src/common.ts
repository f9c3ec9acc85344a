import { z } from 'zod';
import { ErrorCodes } from './errors.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './limits.js';
import { parseIp } from './net.js';

/** Record ids are UUIDs (v7) on the wire. */
export const Id = z.string().min(1).max(64);

/** An ISO 8601 instant with its offset, e.g. 2026-11-22T09:00:00.000Z. */
export const IsoDateTime = z.iso.datetime({ offset: true });

/** A password being set: 8–64 characters (the spec's message). */
export const NewPassword = z
  .string()
  .min(PASSWORD_MIN_LENGTH, ErrorCodes.passwordLength)
  .max(PASSWORD_MAX_LENGTH, ErrorCodes.passwordLength);

/** A required display or sign-in name. */
export const RequiredName = z.string().trim().min(1).max(200);

function urlWithScheme(schemes: readonly string[], message: string) {
  return z
    .string()
    .trim()
    .max(2048)
    .refine((value) => {
      try {
        return schemes.includes(new URL(value).protocol.replace(/:$/, ''));
      } catch {
        return false;
      }
    }, message);
}

/** An http(s) URL, or the spec's 'URL must be http or https'. */
export const HttpUrl = urlWithScheme(['http', 'https'], ErrorCodes.urlMustBeHttp);
/** An LDAP server URL (ldap, ldaps, ldapi, cldap), or 'URL must be ldap or ldaps'. */
export const LdapUrl = urlWithScheme(['ldap', 'ldaps', 'ldapi', 'cldap'], ErrorCodes.urlMustBeLdap);
/**
 * A GELF listener: udp, tcp or tls, a host and a port, nothing else (no credentials, path or query);
 * otherwise 'URL must be udp, tcp, or tls'.
 */
export const GelfUrl = urlWithScheme(['udp', 'tcp', 'tls'], ErrorCodes.urlMustBeGelf).refine((value) => {
  try {
    const url = new URL(value);
    const port = Number(url.port);
    const bare = url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    return bare && url.hostname !== '' && (url.pathname === '' || url.pathname === '/') && port >= 1 && port <= 65535;
  } catch {
    return false;
  }
}, ErrorCodes.urlMustBeGelf);

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
