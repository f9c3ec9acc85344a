import { execFile, execFileSync, spawn } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import { accessSync, constants, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'vitest';
import { capture, freePort, waitFor, type RunningProcess } from '@postern/test-support';

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
/** util-linux's setpriv, when present, makes the kernel kill PHP if the test process dies. */
const SETPRIV = '/usr/bin/setpriv';

const NAMEID_UNSPECIFIED = 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified';
const HTTP_POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';

const execFileAsync = promisify(execFile);

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

/** What a browser ends up with after signing in: the auto-submitted form to the SP's ACS. */
export interface SamlPostForm {
  action: string;
  SAMLResponse: string;
  RelayState: string | undefined;
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

/** CI sets this: a missing IdP is then a failure, never a silent skip. */
const SYSTEM_TESTS_REQUIRED = process.env.POSTERN_REQUIRE_SYSTEM_TESTS === '1';

/**
 * Skips the test (saying why) when SimpleSAMLphp, PHP or openssl is missing, or fails it when
 * POSTERN_REQUIRE_SYSTEM_TESTS=1. Call it first in a test or in `beforeEach`.
 */
export function requireSimpleSamlPhp(context: TestContext): void {
  const missing = missingSimpleSamlPhp();
  if (missing === null) return;
  if (SYSTEM_TESTS_REQUIRED) throw new Error(`system test prerequisite missing: ${missing}`);
  context.skip(`skipped: needs ${missing}`);
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
      const server = launch(dir, port);
      const metadataUrl = `${baseUrl}/saml2/idp/metadata.php`;
      let metadataXml: string;
      try {
        metadataXml = await waitUntilReady(server, metadataUrl);
      } catch (error) {
        await stopProcess(server);
        if (attempt < 3 && /Address already in use|Failed to listen/i.test(server.stderr())) continue;
        throw error;
      }
      let stopped: Promise<void> | undefined;
      return {
        baseUrl,
        metadataUrl,
        metadataXml,
        ssoUrl: `${baseUrl}/saml2/idp/SSOService.php`,
        signingCertificate,
        setServiceProviders: (sps) => writeServiceProviders(dir, sps),
        signIn: (url, username, password) => browserSignIn(url, username, password, server),
        stop: () =>
          (stopped ??= (async () => {
            await stopProcess(server);
            await rm(dir, { recursive: true, force: true });
          })()),
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
  try {
    await execFileAsync(openssl() ?? 'openssl', args, { timeout: 30_000 });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(`openssl req failed: ${typeof stderr === 'string' ? stderr : ''}`, { cause: error });
  }
  return readFile(path.join(dir, 'idp.crt'), 'utf8');
}

/** Children still running, killed if the test process exits without stopping them. */
const running = new Set<RunningProcess>();
let exitHookInstalled = false;

function launch(dir: string, port: number): RunningProcess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const server of running) {
        try {
          if (server.child.pid !== undefined) process.kill(server.child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    });
  }
  // One PHP process (no PHP_CLI_SERVER_WORKERS), so its PID is all there is to stop. setpriv execs
  // PHP in place (same PID) after asking for SIGKILL when our process ends, even by SIGKILL itself.
  const args = ['-S', `127.0.0.1:${port}`, '-t', path.join(SIMPLESAMLPHP_DIR, 'www')];
  const [command, commandArgs] = isExecutable(SETPRIV)
    ? [SETPRIV, ['--pdeathsig', 'KILL', '--', PHP, ...args]]
    : [PHP, args];
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    TMPDIR: path.join(dir, 'tmp'),
    SIMPLESAMLPHP_CONFIG_DIR: dir,
  };
  const child = spawn(command, commandArgs, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = capture(child);
  running.add(server);
  void server.finished.finally(() => running.delete(server)).catch(() => undefined);
  return server;
}

async function waitUntilReady(server: RunningProcess, metadataUrl: string): Promise<string> {
  let exited = false;
  void server.finished.then(
    () => (exited = true),
    () => (exited = true),
  );
  let metadataXml = '';
  await waitFor(
    async () => {
      if (exited) throw new Error(`PHP exited during start-up:\n${server.stderr()}`);
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

/** SIGTERM by PID, then SIGKILL if PHP has not ended within the deadline. */
async function stopProcess(server: RunningProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) {
    await server.finished.catch(() => undefined);
    return;
  }
  process.kill(child.pid, 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    server.finished.then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
  ]);
  clearTimeout(timer);
  if (!ended) {
    process.kill(child.pid, 'SIGKILL');
    await server.finished.catch(() => undefined);
  }
}

/** The few steps a browser takes at the IdP; more than this means the flow went wrong. */
const MAX_BROWSER_STEPS = 10;

/**
 * A minimal browser: follows redirects by hand (so it can keep cookies per step), submits the login
 * form, and stops at the IdP's auto-submitting form to the SP.
 */
async function browserSignIn(
  startUrl: string,
  username: string,
  password: string,
  server: RunningProcess,
): Promise<SamlPostForm> {
  const cookies = new Map<string, string>();
  // What PHP logs from here on (SimpleSAMLphp logs its errors to stderr) explains a failure.
  const logFrom = server.stderr().length;
  const failure = (what: string, html: string) =>
    new Error(`${what} at ${request.url.split('?')[0] ?? ''}: ${pageSummary(html)}\n${server.stderr().slice(logFrom)}`);
  let request: { url: string; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: startUrl, method: 'GET' };
  let submittedPassword = false;
  for (let step = 0; step < MAX_BROWSER_STEPS; step += 1) {
    const response = await fetch(request.url, {
      method: request.method,
      redirect: 'manual',
      headers: {
        ...(cookies.size === 0 ? {} : { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') }),
        ...(request.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(request.body === undefined ? {} : { body: request.body.toString() }),
      signal: AbortSignal.timeout(10_000),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair !== undefined && at > 0) cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      request = { url: new URL(location, request.url).toString(), method: 'GET' };
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw failure(`IdP answered ${response.status}`, html);
    const samlResponse = hiddenInput(html, 'SAMLResponse');
    if (samlResponse !== undefined) {
      const action = formAction(html);
      if (action === undefined) throw new Error('the IdP posted a SAMLResponse without a form action');
      return {
        action: new URL(action, request.url).toString(),
        SAMLResponse: samlResponse,
        RelayState: hiddenInput(html, 'RelayState'),
      };
    }
    const authState = hiddenInput(html, 'AuthState');
    if (authState === undefined) throw failure('the IdP showed an error page', html);
    if (submittedPassword) throw failure('the IdP refused the username or password', html);
    submittedPassword = true;
    const target = new URL(formAction(html) ?? '', request.url).toString();
    request = { url: target, method: 'POST', body: new URLSearchParams({ username, password, AuthState: authState }) };
  }
  throw new Error(`no SAMLResponse after ${MAX_BROWSER_STEPS} steps at the IdP`);
}

/** The headings and error texts of an IdP page, for an error message (not the whole page). */
function pageSummary(html: string): string {
  const texts = [...html.matchAll(/<(h1|h2|p)\b[^>]*>([\s\S]*?)<\/\1>/gi)]
    .map((match) =>
      decodeEntities(
        (match[2] ?? '')
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ),
    )
    .filter((text) => text !== '');
  return texts.slice(0, 6).join(' | ');
}

/** The value of `<input … name="name" … value="…">`, HTML entities decoded. */
function hiddenInput(html: string, name: string): string | undefined {
  for (const match of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = match[0];
    if (attribute(tag, 'name') === name) return attribute(tag, 'value') ?? '';
  }
  return undefined;
}

function formAction(html: string): string | undefined {
  const tag = /<form\b[^>]*>/i.exec(html)?.[0];
  return tag === undefined ? undefined : attribute(tag, 'action');
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag);
  if (match === null) return undefined;
  return decodeEntities(match[2] ?? match[3] ?? '');
}

function decodeEntities(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_m, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_m, dec: string) => String.fromCodePoint(parseInt(dec, 10)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
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

function openssl(): string | null {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(path.delimiter)) {
    const candidate = path.join(dir, 'openssl');
    if (dir !== '' && isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
