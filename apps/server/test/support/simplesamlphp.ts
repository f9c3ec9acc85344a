import { execFileSync } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
import { browserSignIn, type SamlPostForm } from './simplesamlphp-browser.js';

export type { SamlPostForm } from './simplesamlphp-browser.js';

/**
 * A throwaway SAML identity provider for tests: Debian's SimpleSAMLphp 1.19 (/usr/share/simplesamlphp)
 * served by PHP's built-in web server as our own child process. Everything it reads or writes besides
 * its code lives in a temporary directory that SIMPLESAMLPHP_CONFIG_DIR points at: configuration,
 * its signing key (made with openssl), the users, the service providers it trusts, PHP sessions and
 * logs. It never reads or changes /etc/simplesamlphp and never modifies /usr/share.
 */

/** Debian's install; POSTERN_SIMPLESAMLPHP_DIR points elsewhere (or at nothing, to see the tests skip). */
const SIMPLESAMLPHP_DIR = process.env.POSTERN_SIMPLESAMLPHP_DIR ?? '/usr/share/simplesamlphp';
const PHP = process.env.POSTERN_PHP_PATH ?? '/usr/bin/php';

const NAMEID_UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';

/** A service provider the IdP answers. */
export interface SimpleSamlPhpServiceProvider {
  entityId: string;
  acsUrl: string;
  /** PEM of the SP's signing certificate: given, the IdP refuses AuthnRequests it did not sign. */
  certificate?: string;
  /** Whether the IdP signs the Response envelope as well as the assertion (default true). */
  signResponse?: boolean;
}

/** A person who can sign in at the IdP; the NameID sent is their username. */
export interface SimpleSamlPhpUser {
  username: string;
  password: string;
  /** SAML attributes released for them (uid is added: it is the NameID). */
  attributes?: Record<string, string[]>;
}

export interface SimpleSamlPhpOptions {
  sp: SimpleSamlPhpServiceProvider | SimpleSamlPhpServiceProvider[];
  users: SimpleSamlPhpUser[];
}

export interface SimpleSamlPhp {
  /** http://127.0.0.1:<port>, the IdP's web root. */
  baseUrl: string;
  /** Where the IdP publishes its SAML 2.0 metadata; also its entity ID. */
  metadataUrl: string;
  metadataXml: string;
  /** The SingleSignOnService (HTTP-Redirect) location. */
  ssoUrl: string;
  /** PEM of the certificate the IdP signs responses with. */
  signingCertificate: string;
  /** Replaces the service providers the IdP trusts; it reads them on each request. */
  setServiceProviders(sps: SimpleSamlPhpServiceProvider[]): Promise<void>;
  /**
   * Follows `authnRequestUrl` (our SP's redirect to the IdP) as a browser would: keeps the IdP's
   * cookies, submits the username and password form, and returns the form the IdP posts to the SP.
   */
  signIn(authnRequestUrl: string, username: string, password: string): Promise<SamlPostForm>;
  /** Stops PHP (by PID) and removes the directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** Null when this machine can run the harness, else what is missing and how to get it. */
export function missingSimpleSamlPhp(): string | null {
  const missing: string[] = [];
  if (!isExecutable(PHP)) missing.push(PHP);
  else if (!phpHasDom()) missing.push('the PHP dom extension');
  for (const file of ['www/saml2/idp/SSOService.php', 'modules/exampleauth', 'lib/_autoload.php']) {
    if (!existsSync(path.join(SIMPLESAMLPHP_DIR, file))) missing.push(path.join(SIMPLESAMLPHP_DIR, file));
  }
  if (openssl() === null) missing.push('openssl');
  if (missing.length === 0) return null;
  return `${missing.join(', ')} (apt-get install simplesamlphp php-cli php-xml openssl)`;
}

/**
 * Skips the test (saying why) when SimpleSAMLphp, PHP or openssl is missing, or fails it when
 * POSTERN_REQUIRE_SYSTEM_TESTS=1. Call it first in a test or in `beforeEach`.
 */
export function requireSimpleSamlPhp(context: TestContext): void {
  requirePrerequisite(context, missingSimpleSamlPhp());
}

/** Starts the IdP, waiting (with a deadline) until it serves its metadata. */
export async function startSimpleSamlPhp(options: SimpleSamlPhpOptions): Promise<SimpleSamlPhp> {
  const missing = missingSimpleSamlPhp();
  if (missing !== null) throw new Error(`cannot start SimpleSAMLphp: missing ${missing}`);
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-simplesamlphp-'));
  try {
    const signingCertificate = await createSigningKey(dir);
    await writeUsers(dir, options.users);
    await writeServiceProviders(dir, Array.isArray(options.sp) ? options.sp : [options.sp]);
    for (const sub of ['tmp', 'log', 'data', 'sessions']) await mkdir(path.join(dir, sub), { mode: 0o700 });

    // freePort's answer can be taken by someone else before PHP binds it; then try new ports.
    for (let attempt = 1; ; attempt += 1) {
      const port = await freePort();
      const baseUrl = `http://127.0.0.1:${port}`;
      await writeConfig(dir, baseUrl);
      const server = launchPhp(dir, port);
      const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`;
      let metadataXml: string;
      try {
        metadataXml = await waitUntilReady(server, metadataUrl);
      } catch (error) {
        await stopProcess(server);
        if (attempt < 3 && /Address already in use|Failed to listen/i.test(server.stderr())) continue;
        throw error;
      }
      return {
        baseUrl,
        metadataUrl,
        metadataXml,
        ssoUrl: `${baseUrl}/saml2/idp/SSOService.php`,
        signingCertificate,
        setServiceProviders: (sps) => writeServiceProviders(dir, sps),
        signIn: (url, username, password) => browserSignIn(url, username, password, server),
        stop: stopAndRemove(server, dir),
      };
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The PHP configuration files only load JSON we write, so no value ever needs PHP escaping. */
function phpLoadingJson(variable: string, jsonFile: string): string {
  return `<?php\n$${variable} = json_decode(file_get_contents(__DIR__ . '/${jsonFile}'), true, 512, JSON_THROW_ON_ERROR);\n`;
}

async function writeConfig(dir: string, baseUrl: string): Promise<void> {
  const config = {
    baseurlpath: `${baseUrl}/`,
    certdir: `${dir}/`,
    loggingdir: path.join(dir, 'log'),
    datadir: path.join(dir, 'data'),
    tempdir: path.join(dir, 'tmp'),
    metadatadir: path.join(dir, 'metadata'),
    technicalcontact_name: 'Postern tests',
    technicalcontact_email: 'tests@postern.invalid',
    timezone: 'UTC',
    secretsalt: randomBytes(24).toString('hex'),
    'auth.adminpassword': randomBytes(24).toString('hex'),
    'admin.protectindexpage': true,
    'admin.protectmetadata': false,
    'admin.checkforupdates': false,
    'enable.saml20-idp': true,
    'enable.shib13-idp': false,
    'enable.adfs-idp': false,
    // Enabled here, not by an `enable` file in /usr/share, which the test must not touch.
    'module.enable': { exampleauth: true, core: true, saml: true, admin: false },
    'store.type': 'phpsession',
    'session.phpsession.savepath': path.join(dir, 'sessions'),
    'session.phpsession.cookiename': 'SimpleSAML',
    // Plain HTTP on loopback: cookies must not require TLS.
    'session.cookie.secure': false,
    'session.cookie.samesite': null,
    'language.cookie.secure': false,
    'language.cookie.samesite': null,
    'logging.handler': 'stderr',
    'logging.level': 4, // warning
    showerrors: true,
    errorreporting: false,
    production: true,
    debug: { saml: false, backtraces: true, validatexml: false },
  };
  await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
  await writeFile(path.join(dir, 'config.php'), phpLoadingJson('config', 'config.json'));

  await mkdir(path.join(dir, 'metadata'), { recursive: true });
  const hosted = {
    // __DYNAMIC:1__ makes the entity ID the metadata URL under baseurlpath.
    '__DYNAMIC:1__': {
      host: '__DEFAULT__',
      privatekey: 'idp.key',
      certificate: 'idp.crt',
      auth: 'example-userpass',
      NameIDFormat: NAMEID_UNSPECIFIED,
      'simplesaml.nameidattribute': 'uid',
      'signature.algorithm': RSA_SHA256,
      'attributes.NameFormat': 'urn:oasis:names:tc:SAML:2.0:attrname-format:basic',
    },
  };
  await writeFile(path.join(dir, 'metadata', 'idp-hosted.json'), JSON.stringify(hosted));
  await writeFile(path.join(dir, 'metadata', 'saml20-idp-hosted.php'), phpLoadingJson('metadata', 'idp-hosted.json'));
}

async function writeUsers(dir: string, users: SimpleSamlPhpUser[]): Promise<void> {
  const userPass: Record<string, Record<string, string[]>> = {};
  for (const user of users) {
    if (user.username.includes(':')) throw new Error(`exampleauth cannot hold a ':' in a username: ${user.username}`);
    userPass[`${user.username}:${user.password}`] = { ...user.attributes, uid: [user.username] };
  }
  const sources = { admin: ['core:AdminPassword'], 'example-userpass': { 0: 'exampleauth:UserPass', ...userPass } };
  await writeFile(path.join(dir, 'authsources.json'), JSON.stringify(sources));
  await writeFile(path.join(dir, 'authsources.php'), phpLoadingJson('config', 'authsources.json'));
}

async function writeServiceProviders(dir: string, sps: SimpleSamlPhpServiceProvider[]): Promise<void> {
  const remote: Record<string, object> = {};
  for (const sp of sps) {
    remote[sp.entityId] = {
      AssertionConsumerService: [{ index: 0, Binding: HTTP_POST, Location: sp.acsUrl }],
      NameIDFormat: NAMEID_UNSPECIFIED,
      'simplesaml.nameidattribute': 'uid',
      'saml20.sign.assertion': true,
      'saml20.sign.response': sp.signResponse ?? true,
      'signature.algorithm': RSA_SHA256,
      ...(sp.certificate === undefined
        ? {}
        : { certData: new X509Certificate(sp.certificate).raw.toString('base64'), 'validate.authnrequest': true }),
    };
  }
  await mkdir(path.join(dir, 'metadata'), { recursive: true });
  // Written beside and renamed would be atomic; PHP reads the file per request, and the tests change
  // it only between sign-ins, so a plain write is enough.
  await writeFile(path.join(dir, 'metadata', 'sp-remote.json'), JSON.stringify(remote));
  await writeFile(path.join(dir, 'metadata', 'saml20-sp-remote.php'), phpLoadingJson('metadata', 'sp-remote.json'));
}

/** An RSA key and self-signed certificate for the IdP, valid for two days. Returns the certificate's PEM. */
async function createSigningKey(dir: string): Promise<string> {
  const args = [
    'req',
    '-x509',
    '-nodes',
    '-newkey',
    'rsa:2048',
    '-subj',
    '/CN=Postern test IdP',
    '-days',
    '2',
    '-keyout',
    path.join(dir, 'idp.key'),
    '-out',
    path.join(dir, 'idp.crt'),
  ];
  await run(openssl() ?? 'openssl', args);
  return readFile(path.join(dir, 'idp.crt'), 'utf8');
}

function launchPhp(dir: string, port: number): RunningProcess {
  // One PHP process (no PHP_CLI_SERVER_WORKERS), so its PID is all there is to stop.
  const args = ['-S', `127.0.0.1:${port}`, '-t', path.join(SIMPLESAMLPHP_DIR, 'www')];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    TMPDIR: path.join(dir, 'tmp'),
    SIMPLESAMLPHP_CONFIG_DIR: dir,
  };
  return launch(PHP, args, { cwd: dir, env });
}

async function waitUntilReady(server: RunningProcess, metadataUrl: string): Promise<string> {
  const exited = exitWatcher(server);
  let metadataXml = '';
  await waitFor(
    async () => {
      if (exited()) throw new Error(`PHP exited during start-up:\n${server.stderr()}`);
      try {
        const response = await fetch(metadataUrl, { signal: AbortSignal.timeout(2_000) });
        const text = await response.text();
        if (response.status === 200 && text.includes('IDPSSODescriptor')) {
          metadataXml = text;
          return true;
        }
        if (response.status >= 500)
          throw new Error(`SimpleSAMLphp answered ${response.status}:\n${text.slice(0, 2000)}`);
        return false;
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('SimpleSAMLphp answered')) throw error;
        return false;
      }
    },
    'SimpleSAMLphp to serve its metadata',
    20_000,
  );
  return metadataXml;
}

let domChecked: boolean | undefined;

/** SimpleSAMLphp's XML code needs PHP's dom extension (Debian: php-xml). */
function phpHasDom(): boolean {
  if (domChecked === undefined) {
    try {
      execFileSync(PHP, ['-r', 'exit(extension_loaded("dom") ? 0 : 1);'], { stdio: 'ignore', timeout: 10_000 });
      domChecked = true;
    } catch {
      domChecked = false;
    }
  }
  return domChecked;
}
