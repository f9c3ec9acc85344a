import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'ldapts';
import type { TestContext } from 'vitest';
import { freePort, waitFor, type RunningProcess } from '@postern/test-support';
import {
  exitWatcher,
  isExecutable,
  launch,
  openssl,
  requirePrerequisite,
  run,
  stopAndRemove,
  stopProcess,
} from './daemon.js';

/**
 * A throwaway OpenLDAP server for tests: Debian's slapd as our own child process, with its
 * configuration, database, certificates and socket in a temporary directory. It never reads or
 * changes /etc/ldap/slapd.d or the system service; it only reads the schema files slapd ships.
 */

/** Debian's slapd; POSTERN_SLAPD_PATH points elsewhere (or at nothing, to see the tests skip). */
const SLAPD = process.env.POSTERN_SLAPD_PATH ?? '/usr/sbin/slapd';
const SCHEMA_DIR = '/etc/ldap/schema';
const MODULE_DIR = '/usr/lib/ldap';
const SCHEMAS = ['core', 'cosine', 'inetorgperson'];
const BASE_DN = 'dc=postern,dc=test';
const PEOPLE_DN = `ou=people,${BASE_DN}`;
/** A Unix socket path is at most 107 bytes (sun_path). */
const MAX_SOCKET_PATH = 107;

export interface SlapdUser {
  uid: string;
  /** Stored as a salted SHA-1 hash ({SSHA}); an empty password stores no userPassword at all. */
  password: string;
  cn?: string;
}

export interface Slapd {
  /** Plain LDAP on 127.0.0.1, with StartTLS available. */
  ldapUrl: string;
  ldapsUrl: string;
  /** The local socket, percent-encoded as ldapi URLs need. */
  ldapiUrl: string;
  /** PEM of the CA that signed the server certificate (SAN 127.0.0.1 and localhost). */
  caCertificate: string;
  baseDn: string;
  /** The DN of the person with this uid (whether or not the entry exists). */
  dnOf(uid: string): string;
  /** Stops slapd (by PID) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Null when this machine can run the harness, else what is missing and how to get it. */
export function missingSlapd(): string | null {
  const missing: string[] = [];
  if (!isExecutable(SLAPD)) missing.push(SLAPD);
  for (const schema of SCHEMAS) {
    const file = path.join(SCHEMA_DIR, `${schema}.schema`);
    if (!existsSync(file)) missing.push(file);
  }
  if (!existsSync(path.join(MODULE_DIR, 'back_mdb.so'))) missing.push(path.join(MODULE_DIR, 'back_mdb.so'));
  if (openssl() === null) missing.push('openssl');
  if (missing.length === 0) return null;
  return `${missing.join(', ')} (apt-get install slapd openssl)`;
}

/**
 * Skips the test (saying why) when slapd or openssl is missing, or fails it when
 * POSTERN_REQUIRE_SYSTEM_TESTS=1. Call it first in a test or in `beforeEach`.
 */
export function requireSlapd(context: TestContext): void {
  requirePrerequisite(context, missingSlapd());
}

/** Starts slapd with the people given, waiting (with a deadline) until all three listeners answer. */
export async function startSlapd(options: { users: SlapdUser[] }): Promise<Slapd> {
  const missing = missingSlapd();
  if (missing !== null) throw new Error(`cannot start slapd: missing ${missing}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-slapd-'));
  try {
    const socketPath = path.join(dir, 'ldapi');
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
      throw new Error(`the temporary directory ${dir} is too long for a Unix socket; set TMPDIR=/tmp`);
    }
    const caCertificate = await createCertificates(dir);
    await mkdir(path.join(dir, 'db'), { mode: 0o700 });
    await writeFile(path.join(dir, 'slapd.conf'), slapdConf(dir), { mode: 0o600 });
    await writeFile(path.join(dir, 'seed.ldif'), seedLdif(options.users), { mode: 0o600 });
    // Offline load (slapadd) before the server starts: no network, no admin account needed.
    await run(SLAPD, ['-T', 'add', '-f', path.join(dir, 'slapd.conf'), '-l', path.join(dir, 'seed.ldif'), '-q']);

    // freePort's answer can be taken by someone else before slapd binds it; then try new ports.
    for (let attempt = 1; ; attempt += 1) {
      const ports = { ldap: await freePort(), ldaps: await freePort() };
      const urls = {
        ldapUrl: `ldap://127.0.0.1:${ports.ldap}`,
        ldapsUrl: `ldaps://127.0.0.1:${ports.ldaps}`,
        ldapiUrl: `ldapi://${encodeURIComponent(socketPath)}`,
      };
      const server = launchSlapd(dir, urls);
      try {
        await waitUntilReady(server, urls, socketPath, caCertificate);
      } catch (error) {
        await stopProcess(server);
        if (attempt < 3 && /Address already in use/.test(server.stderr())) continue;
        throw error;
      }
      return {
        ...urls,
        caCertificate,
        baseDn: BASE_DN,
        dnOf: (uid) => `uid=${escapeDnValue(uid)},${PEOPLE_DN}`,
        stop: stopAndRemove(server, dir),
      };
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function launchSlapd(dir: string, urls: { ldapUrl: string; ldapsUrl: string; ldapiUrl: string }): RunningProcess {
  // `-d none` keeps slapd in the foreground, as our child, printing only errors.
  const args = [
    '-d',
    'none',
    '-f',
    path.join(dir, 'slapd.conf'),
    '-h',
    `${urls.ldapUrl} ${urls.ldapsUrl} ${urls.ldapiUrl}`,
  ];
  return launch(SLAPD, args, { cwd: dir });
}

async function waitUntilReady(
  server: RunningProcess,
  urls: { ldapUrl: string; ldapsUrl: string },
  socketPath: string,
  caCertificate: string,
): Promise<void> {
  const exited = exitWatcher(server);
  const clients = [
    () => new Client({ url: urls.ldapUrl, connectTimeout: 1_000, timeout: 1_000 }),
    () =>
      new Client({ url: urls.ldapsUrl, connectTimeout: 1_000, timeout: 1_000, tlsOptions: { ca: [caCertificate] } }),
    () =>
      new Client({
        url: 'ldap://localhost',
        connectTimeout: 1_000,
        timeout: 1_000,
        createConnection: () => netConnect({ path: socketPath }),
      }),
  ];
  await waitFor(
    async () => {
      if (exited()) throw new Error(`slapd exited during start-up:\n${server.stderr()}`);
      for (const makeClient of clients) {
        const client = makeClient();
        try {
          // A base search of the root DSE: answered only once slapd serves requests on that listener.
          await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['namingContexts'] });
        } catch {
          return false;
        } finally {
          await client.unbind().catch(() => undefined);
        }
      }
      return true;
    },
    'slapd to answer on ldap, ldaps and ldapi',
    20_000,
  );
}

/** A CA and a server certificate for 127.0.0.1 and localhost, valid for two days. Returns the CA's PEM. */
async function createCertificates(dir: string): Promise<string> {
  const file = (name: string) => path.join(dir, name);
  await writeFile(file('openssl.cnf'), OPENSSL_CONFIG);
  /** `{ '-out': x }` as the arguments `-out x`. */
  const flags = (pairs: Record<string, string>) => Object.entries(pairs).flat();
  const newKey = [
    '-nodes',
    ...flags({ '-config': file('openssl.cnf'), '-newkey': 'ec', '-pkeyopt': 'ec_paramgen_curve:P-256' }),
  ];
  const command = openssl() ?? 'openssl';

  const ca = {
    '-subj': '/CN=Postern test CA',
    '-extensions': 'ca_ext',
    '-days': '2',
    '-keyout': file('ca.key'),
    '-out': file('ca.crt'),
  };
  await run(command, ['req', '-x509', ...newKey, ...flags(ca)]);

  const request = { '-subj': '/CN=127.0.0.1', '-keyout': file('server.key'), '-out': file('server.csr') };
  await run(command, ['req', '-new', ...newKey, ...flags(request)]);

  const signing = {
    '-in': file('server.csr'),
    '-CA': file('ca.crt'),
    '-CAkey': file('ca.key'),
    // A leading 1 keeps the random serial positive, as X.509 requires.
    '-set_serial': `0x1${randomBytes(8).toString('hex')}`,
    '-days': '2',
    '-extfile': file('openssl.cnf'),
    '-extensions': 'server_ext',
    '-out': file('server.crt'),
  };
  await run(command, ['x509', '-req', ...flags(signing)]);
  return readFile(file('ca.crt'), 'utf8');
}

const OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = Postern test CA
[ca_ext]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

function slapdConf(dir: string): string {
  // Quoted, so a temporary directory with spaces still works.
  const file = (name: string) => JSON.stringify(path.join(dir, name));
  return [
    ...SCHEMAS.map((schema) => `include ${JSON.stringify(path.join(SCHEMA_DIR, `${schema}.schema`))}`),
    // Kept in our directory: the defaults are under /var/run/slapd, which belongs to the system service.
    `pidfile ${file('slapd.pid')}`,
    `argsfile ${file('slapd.args')}`,
    'loglevel none',
    `modulepath ${JSON.stringify(MODULE_DIR)}`,
    'moduleload back_mdb',
    `TLSCACertificateFile ${file('ca.crt')}`,
    `TLSCertificateFile ${file('server.crt')}`,
    `TLSCertificateKeyFile ${file('server.key')}`,
    'database mdb',
    `suffix "${BASE_DN}"`,
    `directory ${file('db')}`,
    'maxsize 10485760',
    // Passwords can be used to bind and are never readable; everything else is readable by anyone.
    'access to attrs=userPassword by anonymous auth by self write by * none',
    'access to * by * read',
    '',
  ].join('\n');
}

function seedLdif(users: SlapdUser[]): string {
  const entries: [string, [string, string][]][] = [
    [
      BASE_DN,
      [
        ['objectClass', 'dcObject'],
        ['objectClass', 'organization'],
        ['dc', 'postern'],
        ['o', 'Postern test'],
      ],
    ],
    [
      PEOPLE_DN,
      [
        ['objectClass', 'organizationalUnit'],
        ['ou', 'people'],
      ],
    ],
    ...users.map((user): [string, [string, string][]] => [
      `uid=${escapeDnValue(user.uid)},${PEOPLE_DN}`,
      [
        ['objectClass', 'inetOrgPerson'],
        ['uid', user.uid],
        ['cn', user.cn ?? user.uid],
        ['sn', user.cn ?? user.uid],
        ...(user.password === '' ? [] : [['userPassword', ssha(user.password)] as [string, string]]),
      ],
    ]),
  ];
  return entries
    .map(([dn, attributes]) => [ldifLine('dn', dn), ...attributes.map(([name, value]) => ldifLine(name, value))])
    .map((lines) => `${lines.join('\n')}\n`)
    .join('\n');
}

/**
 * The {SSHA} scheme of `slappasswd -h {SSHA}` (salted SHA-1, base64 of digest + salt), computed here so
 * no password ever appears on a command line. slapd checks it itself on every bind.
 */
function ssha(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password, 'utf8').update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

/** An LDIF line; values that are not plain safe ASCII are base64 (`name:: …`), as RFC 2849 requires. */
function ldifLine(name: string, value: string): string {
  const safe = /^[\x21-\x39\x3b\x3d-\x7e][\x20-\x7e]*$/.test(value) && !value.endsWith(' ');
  return safe ? `${name}: ${value}` : `${name}:: ${Buffer.from(value, 'utf8').toString('base64')}`;
}

/** RFC 4514 escaping of an attribute value inside a DN. */
function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (char) => `\\${char}`)
    .replace(/^[ #]/, (char) => `\\${char}`)
    .replace(/ $/, '\\ ')
    .replace(/\0/g, '\\00');
}
