/**
 * Deterministic generators of hostile request parts for the route fuzz: a seeded PRNG and what to
 * pick from. Outbound-looking values name only loopback (port 9, discard), so nothing a fuzzed
 * setting makes the server contact can leave the machine.
 */

/** mulberry32: small, fast, and the same sequence for the same seed on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export type Random = () => number;

export function pick<T>(random: Random, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)] as T;
}

/** The API's own field names (and prototype keys), so bodies reach past "unknown field" checks. */
const FIELD_NAMES = [
  'UserName',
  'Password',
  'KioskMode',
  'Code',
  'deferEnrolment',
  'ACLID',
  'IPs',
  'IP',
  'Port',
  'Attestation',
  'ID',
  'Name',
  'Company',
  'Duration',
  'SessionLimit',
  'AuthType',
  'PlainPassword',
  'ConfirmPassword',
  'TOTPEnabled',
  'ValidUntil',
  'ThirdPartyAuth',
  'DN',
  'AclIds',
  'UserIds',
  'Token',
  'Description',
  'URL',
  'Category',
  'Icon',
  'Config',
  'BackendID',
  'AgentID',
  'Type',
  'Scopes',
  'AllowedFrom',
  'Prefix',
  'ExpiredAfter',
  'Minutes',
  'Reason',
  'License',
  'DiscoverIP',
  'DiscoverIPURL',
  'DebugMode',
  'GELFListenerURL',
  'KioskSessionDuration',
  'Accent',
  'Logo',
  'LightModeLogo',
  'ExistingPassword',
  'NewPassword',
  'MaximumGrantDuration',
  'GrantType',
  'Ips',
  'IpExclusions',
  'RestrictionType',
  'Ranges',
  'Start',
  'End',
  'Knoc',
  'Backend',
  'ApiKey',
  'Members',
  '__proto__',
  'constructor',
  'prototype',
  '',
];

const STRINGS = [
  '',
  ' ',
  'a',
  'admin',
  'postern-admin',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '00000000-0000-0000-0000-000000000000',
  '0194c1d2-7c4e-7000-8000-000000000001',
  '127.0.0.1',
  '169.254.169.254',
  '::ffff:1.2.3.4',
  '0.0.0.0/0',
  '::/0',
  '10.0.0.1/33',
  '2001:db8::1%eth0',
  'http://127.0.0.1:9/',
  'ldap://127.0.0.1:9',
  'udp://127.0.0.1:9',
  'javascript:alert(1)',
  'file:///etc/passwd',
  "' OR '1'='1",
  '"; DROP TABLE users; --',
  '<script>alert(1)</script>',
  '${jndi:ldap://127.0.0.1:9/a}',
  '../../../../etc/passwd',
  '%00',
  '\u0000',
  '\r\nX-Injected: 1',
  'e\u0301\u200b\ufeff',
  '\ud800',
  '😀'.repeat(40),
  '9'.repeat(400),
  '2026-13-45T25:61:61Z',
  '2026-11-22T09:00:00.000Z',
  'data:image/png;base64,AAAA',
  'a'.repeat(70),
];

const NUMBERS = [0, -1, 1, 5, 59, 60, 65_535, 65_536, 1.5, -0.5, 2 ** 31, 2 ** 53 + 1, 1e12, 1e308, -1e308];

/** A random JSON value, at most `depth` levels deep. */
export function randomJson(random: Random, depth = 3): unknown {
  const kind = depth <= 0 ? Math.floor(random() * 4) : Math.floor(random() * 6);
  switch (kind) {
    case 0:
      return pick(random, STRINGS);
    case 1:
      return pick(random, NUMBERS);
    case 2:
      return pick(random, [true, false, null]);
    case 3:
      return random() < 0.5 ? pick(random, STRINGS) : 'x'.repeat(Math.floor(random() * 20_000));
    case 4:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth - 1));
    default:
      return randomObject(random, depth - 1);
  }
}

/** An object with the API's field names and random values. */
export function randomObject(random: Random, depth = 2): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const fields = 1 + Math.floor(random() * 6);
  for (let index = 0; index < fields; index += 1) {
    object[pick(random, FIELD_NAMES)] = randomJson(random, depth);
  }
  return object;
}

/** Bodies that are not JSON, or JSON that should not parse. */
export const RAW_BODIES = [
  '',
  '{',
  '{"UserName":',
  '[',
  'null',
  '"just a string"',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '\ufeff{}',
  '{"a":1,"a":2}',
  '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
  '{"x":' + '['.repeat(5_000) + ']'.repeat(5_000) + '}',
  'UserName=a&Password=b',
  '\u0000\u0001\u0002',
  '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>',
];

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-8; boundary="',
  '',
];

/** Path parameter values, some of which are not even valid URL text. */
export const PARAM_VALUES = [
  '',
  '0',
  '-1',
  'x',
  '%',
  '%zz',
  '%C0%AF',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '..',
  '.',
  "'",
  '%27%20OR%201=1--',
  '00000000-0000-0000-0000-000000000000',
  'a'.repeat(99),
  'a'.repeat(101),
  'a'.repeat(3000),
  '%2561',
  'null',
];

export const QUERIES = [
  '',
  '?',
  '?a=%',
  '?__proto__[polluted]=1',
  '?constructor[prototype][polluted]=1',
  '?limit=-1&offset=1e309',
  '?kioskMode=true&kioskMode=false',
  '?x=' + 'y'.repeat(5000),
  '?error=%3Cscript%3E',
];

/** Header sets that each break something a route reads. */
export const HEADER_SETS: Record<string, string>[] = [
  {},
  { cookie: '=; ;;==;' },
  { cookie: `__Host-postern_session=${'a'.repeat(4096)}` },
  { cookie: '__Host-postern_admin_session=%zz; __Host-postern_session=%00' },
  { authorization: 'Basic' },
  { authorization: 'Basic %%%%' },
  { authorization: `Basic ${Buffer.from('apiuser').toString('base64')}` },
  { authorization: `Basic ${Buffer.from('apiuser:').toString('base64')}` },
  { authorization: `Bearer ${'x'.repeat(6000)}` },
  { authorization: 'Negotiate YII=' },
  { origin: 'null' },
  { origin: 'http://localhost:80' },
  { 'sec-fetch-site': 'none' },
  { 'x-forwarded-for': '1.2.3.4, , ::1, not-an-ip' },
  { 'x-forwarded-proto': 'gopher' },
  { 'if-none-match': '"' + 'x'.repeat(300) },
  { 'user-agent': 'z'.repeat(8000) },
  { 'accept-language': '*;q=x' },
];
