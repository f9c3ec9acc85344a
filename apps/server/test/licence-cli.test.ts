import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, REPO_ROOT, startSourceCommand, type Finished } from '@postern/test-support';
import type { LicenceStatus } from '@postern/protocol';
import { buildCli } from '../src/cli/cli.js';
import { loadConfig } from '../src/config/config.js';
import { contextWithoutAgents, openPreparedStore } from '../src/server.js';
import { buildApp } from '../src/app.js';
import { givenAdmin } from '../src/test-support/factories.js';
import { signInAdmin } from '../src/test-support/http.js';
import { checkLicence, publicKeyFromBase64, type LicencePayload } from '../src/licence/licence-format.js';

const SERVER_SRC = path.join(REPO_ROOT, 'apps/server/src');
const MAIN = path.join(SERVER_SRC, 'main.ts');
const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Until cli.ts registers the licence commands, the real `postern` entry has none; then the test runs
 * a stand-in entry (written to a temporary directory, never shipped) that builds the same program,
 * adds the commands with the same withContext, and reports failures the way main.ts does. Once cli.ts
 * registers them, the test runs main.ts itself and the stand-in is not written.
 */
const WIRED = buildCli().commands.some((command) => command.name() === 'licence');
const STAND_IN = `
import { buildCli } from ${JSON.stringify(path.join(SERVER_SRC, 'cli/cli.ts'))};
import { registerLicenceCommands } from ${JSON.stringify(path.join(SERVER_SRC, 'licence/licence-cli.ts'))};
import { loadConfig } from ${JSON.stringify(path.join(SERVER_SRC, 'config/config.ts'))};
import { ConfigError } from ${JSON.stringify(path.join(SERVER_SRC, 'config/config-error.ts'))};
import { ApiError } from ${JSON.stringify(path.join(SERVER_SRC, 'errors.ts'))};
import { createLogger } from ${JSON.stringify(path.join(SERVER_SRC, 'logger.ts'))};
import { contextWithoutAgents, openPreparedStore } from ${JSON.stringify(path.join(SERVER_SRC, 'server.ts'))};

async function withContext(work) {
  const config = loadConfig();
  const logger = createLogger('warn');
  const store = await openPreparedStore(config, logger);
  try {
    await work(await contextWithoutAgents(config, store, logger));
  } finally {
    await store.close();
  }
}

const program = buildCli();
registerLicenceCommands(program, withContext);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Duck-typed: a bare 'commander' import would not resolve from the temporary directory.
  if (String(error?.code).startsWith('commander.')) process.exitCode = error.exitCode === 0 ? 0 : 2;
  else if (error instanceof ConfigError) { process.stderr.write('postern: ' + error.message + '\\n'); process.exitCode = 2; }
  else if (error instanceof ApiError) { process.stderr.write('postern: ' + (error.extra ?? error.code) + '\\n'); process.exitCode = 1; }
  else { process.stderr.write('postern: unexpected failure: ' + String(error) + '\\n'); process.exitCode = 1; }
}
`;

let entry = MAIN;
let standInDir: string | null = null;
beforeAll(() => {
  if (WIRED) return;
  standInDir = mkdtempSync(path.join(tmpdir(), 'postern-licence-entry-'));
  entry = path.join(standInDir, 'licence-cli-entry.mts');
  writeFileSync(entry, STAND_IN);
});
afterAll(() => {
  if (standInDir !== null) rmSync(standInDir, { recursive: true, force: true });
});

let workDir: string;
let dataDir: string;
beforeEach(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'postern-licence-cli-'));
  dataDir = path.join(workDir, 'data');
});
afterEach(() => rmSync(workDir, { recursive: true, force: true }));

function postern(args: string[]): Promise<Finished> {
  const env = cleanEnv(['POSTERN_', 'DATABASE_URL'], { POSTERN_DATA_DIR: dataDir });
  return startSourceCommand(entry, args, { env }).finished;
}

/** Runs keygen and returns the private key file and the printed public key. */
async function keygen(extra: string[] = [], name = 'signing.pem') {
  const keyFile = path.join(workDir, name);
  const result = await postern(['licence', 'keygen', '--out', keyFile, ...extra]);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const publicKey = /^Public key: (\S+)$/m.exec(result.stdout)?.[1] ?? '';
  return { keyFile, publicKey, result };
}

function payloadOf(licence: string): LicencePayload {
  return JSON.parse(Buffer.from(licence.split('.')[1] ?? '', 'base64url').toString('utf8')) as LicencePayload;
}

/** GET /api/admin/settings/license from the store the CLI wrote, as a signed-in admin would. */
async function statusFromStore(): Promise<LicenceStatus> {
  // The same configuration and context the CLI itself used (server.ts builds both the same way).
  const config = loadConfig({ POSTERN_DATA_DIR: dataDir }, workDir);
  const logger = pino({ level: 'silent' });
  const store = await openPreparedStore(config, logger);
  const ctx = await contextWithoutAgents(config, store, logger);
  const app = await buildApp(ctx, {
    dir: path.join(workDir, 'no-web'),
    current: () => ({ indexHtml: null, bundleHash: 'test' }),
  });
  try {
    const admin = await givenAdmin(ctx);
    const cookie = await signInAdmin(app, admin.userName, admin.password);
    const response = await app.inject({ method: 'GET', url: '/api/admin/settings/license', headers: { cookie } });
    expect(response.statusCode).toBe(200);
    return response.json<{ data: LicenceStatus }>().data;
  } finally {
    await app.close();
    await store.close();
  }
}

// Each case starts real processes from source (bundled once, see startSourceCommand).
describe('postern licence', { timeout: 90_000 }, () => {
  it('keygen writes a private key only its owner can read, and this installation trusts the public key', async () => {
    const { keyFile, publicKey, result } = await keygen();
    expect(result.stdout).toBe(
      [
        `Wrote the private key to ${keyFile} (mode 600). Keep it secret: it signs licences.`,
        `Public key: ${publicKey}`,
        `This installation now trusts it (${path.join(dataDir, 'licence-public-keys')}).`,
        '',
      ].join('\n'),
    );
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(Buffer.from(publicKey, 'base64')).toHaveLength(32);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const trusted = readFileSync(path.join(dataDir, 'licence-public-keys'), 'utf8');
    expect(trusted.split('\n')).toContain(publicKey);
    expect(statSync(path.join(dataDir, 'licence-public-keys')).mode & 0o777).toBe(0o600);
  });

  it('keygen refuses to overwrite an existing file', async () => {
    const { keyFile } = await keygen();
    const before = readFileSync(keyFile, 'utf8');
    const trustedBefore = readFileSync(path.join(dataDir, 'licence-public-keys'), 'utf8');
    const again = await postern(['licence', 'keygen', '--out', keyFile]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`postern: ${keyFile} exists; not overwriting it (choose another --out)\n`);
    expect(again.stdout).toBe('');
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
    expect(readFileSync(path.join(dataDir, 'licence-public-keys'), 'utf8')).toBe(trustedBefore);
  });

  it('issue --install installs an evaluation licence that the status then shows', async () => {
    const { keyFile } = await keygen();
    const started = Date.now();
    const result = await postern(['licence', 'issue', '--key', keyFile, '--install']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [licence = '', installed, ...rest] = result.stdout.split('\n');
    expect(rest).toEqual(['']);
    const payload = payloadOf(licence);
    expect(payload).toMatchObject({
      Licensee: 'Evaluation',
      UserLimit: 25,
      UserLimitOveragePercentage: 20,
      SessionLimit: 3,
      MaxMachines: 0,
    });
    expect(payload.ID).toMatch(UUID);
    const lifetime = Date.parse(payload.Expires) - Date.parse(payload.IssuedAt);
    expect(lifetime).toBe(30 * DAY_MS);
    expect(Date.parse(payload.IssuedAt)).toBeGreaterThanOrEqual(started - 1000);
    expect(installed).toBe(
      `Installed licence ${payload.ID} for Evaluation: 25 users (+20% overage), 3 sessions per user, ` +
        `expires ${payload.Expires.slice(0, 10)}.`,
    );

    expect(await statusFromStore()).toEqual({
      Licensed: true,
      ID: payload.ID,
      Licensee: 'Evaluation',
      UserLimit: 25,
      UserLimitOverage: 5,
      UserLimitOveragePercentage: 20,
      SessionLimit: 3,
      MaxMachines: 0,
      MachineCount: 0,
      Expires: payload.Expires,
      Expired: false,
      UserCount: 0,
    });
  });

  it('issue prints a licence with the options given, signed by the key keygen printed', async () => {
    const { keyFile, publicKey } = await keygen(['--no-trust']);
    const result = await postern([
      'licence',
      'issue',
      '--key',
      keyFile,
      '--licensee',
      'Example Pty Ltd',
      '--users',
      '100',
      '--sessions',
      '5',
      '--machines',
      '4',
      '--overage',
      '50',
      '--expires',
      '2099-12-31',
      '--id',
      'ex-2099',
    ]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const licence = result.stdout.trim();
    expect(result.stdout).toBe(`${licence}\n`);
    const check = checkLicence(licence, [publicKeyFromBase64(publicKey)!], Date.now());
    expect(check).toEqual({
      kind: 'valid',
      licence: expect.objectContaining({
        ID: 'ex-2099',
        Licensee: 'Example Pty Ltd',
        UserLimit: 100,
        UserLimitOveragePercentage: 50,
        SessionLimit: 5,
        MaxMachines: 4,
        Expires: '2099-12-31T23:59:59.000Z',
      }) as LicencePayload,
    });
  });

  it('keygen --no-trust leaves the installation untrusting, so installing its licence fails', async () => {
    const { keyFile, result } = await keygen(['--no-trust']);
    expect(result.stdout.split('\n')[2]).toBe(
      'Not trusted here (--no-trust). Installations trust it through POSTERN_LICENCE_PUBLIC_KEYS.',
    );
    expect(() => statSync(path.join(dataDir, 'licence-public-keys'))).toThrow();
    const install = await postern(['licence', 'issue', '--key', keyFile, '--install']);
    expect(install.code).toBe(1);
    expect(install.stderr).toBe('postern: the licence is not signed by a trusted key\n');
  });

  it.each([
    [['--overage', '60'], /--overage <percent>' argument '60' is invalid\. must be a whole number from 0 to 50/],
    [['--users', '0'], /--users <n>' argument '0' is invalid/],
    [['--days', '10', '--expires', '2099-01-01'], /option '--days <n>' cannot be used with option '--expires/],
    [
      ['--expires', '2026-02-30'],
      /--expires <YYYY-MM-DD>' argument '2026-02-30' is invalid\. must be a real calendar day/,
    ],
  ])('issue %j is a usage error (exit code 2)', async (args, message) => {
    const result = await postern(['licence', 'issue', '--key', path.join(workDir, 'unused.pem'), ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('issue names an unreadable or unsuitable key file', async () => {
    const missing = await postern(['licence', 'issue', '--key', path.join(workDir, 'nope.pem')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`postern: --key: cannot read ${path.join(workDir, 'nope.pem')} (ENOENT)\n`);
    const notAKey = path.join(workDir, 'not-a-key.pem');
    writeFileSync(notAKey, 'hello\n');
    const bad = await postern(['licence', 'issue', '--key', notAKey]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`postern: --key: ${notAKey} is not a private key in PEM\n`);
  });
});
