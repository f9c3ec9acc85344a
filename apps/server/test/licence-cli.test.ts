import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { cleanEnv, REPO_ROOT, startSourceCommand, type Finished } from '@postern/test-support';
import type { LicenceStatus } from '@postern/protocol';
import { loadConfig } from '../src/config/config.js';
import { contextWithoutAgents, openPreparedStore } from '../src/server.js';
import { buildApp } from '../src/app.js';
import { givenAdmin } from '../src/test-support/factories.js';
import { givenAdminSession } from '../src/test-support/sessions.js';
import { checkLicence, publicKeyFromBase64, type LicencePayload } from '../src/licence/licence-format.js';
import { commandCases, once } from './support/command-cases.js';

const MAIN = path.join(REPO_ROOT, 'apps/server/src/main.ts');
const DAY_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/*
 * Each case starts the real command (bundled once per file, see startSourceCommand): a process costs
 * about half a second of CPU, most of it loading the server's modules. The two key pairs the cases
 * sign with (keygen trusting its key, and --no-trust) are made once, by the invocations two cases
 * look at, and the others work on copies of their directories; each case works in a directory of
 * its own (`<dir>/data` its data directory). The cases run one at a time: run at once, they were
 * hardly faster on two cores and cost more CPU.
 */
const { scratch } = commandCases('postern-licence-cli-');

const dataDirOf = (workDir: string) => path.join(workDir, 'data');

function postern(workDir: string, args: string[]): Promise<Finished> {
  const env = cleanEnv(['POSTERN_', 'DATABASE_URL'], { POSTERN_DATA_DIR: dataDirOf(workDir) });
  return startSourceCommand(MAIN, args, { env }).finished;
}

const KEY_FILE = 'signing.pem';

/** Runs keygen in a new work directory and returns it, the private key file and the printed public key. */
async function keygen(extra: string[] = []) {
  const workDir = scratch();
  const keyFile = path.join(workDir, KEY_FILE);
  const result = await postern(workDir, ['licence', 'keygen', '--out', keyFile, ...extra]);
  const publicKey = /^Public key: (\S+)$/m.exec(result.stdout)?.[1] ?? '';
  return { workDir, keyFile, publicKey, result };
}

const trustedKeygen = once(() => keygen());
const untrustedKeygen = once(() => keygen(['--no-trust']));

/**
 * A key pair made by `made` (which must have succeeded), in a copy of its work directory: the case
 * may change the copy as it likes. `workDir` is the copy's, `keyFile` the key in it.
 */
async function copyOf(made: () => Promise<Awaited<ReturnType<typeof keygen>>>) {
  const original = await made();
  expect(original.result.stderr).toBe('');
  expect(original.result.code).toBe(0);
  const workDir = scratch();
  cpSync(original.workDir, workDir, { recursive: true });
  return { ...original, workDir, keyFile: path.join(workDir, KEY_FILE) };
}

function payloadOf(licence: string): LicencePayload {
  return JSON.parse(Buffer.from(licence.split('.')[1] ?? '', 'base64url').toString('utf8')) as LicencePayload;
}

/** GET /api/admin/settings/license from the store the CLI wrote, as a signed-in admin would. */
async function statusFromStore(workDir: string): Promise<LicenceStatus> {
  // The same configuration and context the CLI itself used (server.ts builds both the same way).
  const config = loadConfig({ POSTERN_DATA_DIR: dataDirOf(workDir) }, workDir);
  const logger = pino({ level: 'silent' });
  const store = await openPreparedStore(config, logger);
  const ctx = await contextWithoutAgents(config, store, logger);
  const app = await buildApp(ctx, {
    dir: path.join(workDir, 'no-web'),
    current: () => ({ indexHtml: null, bundleHash: 'test' }),
  });
  try {
    const cookie = await givenAdminSession({ ctx }, await givenAdmin(ctx));
    const response = await app.inject({ method: 'GET', url: '/api/admin/settings/license', headers: { cookie } });
    expect(response.statusCode).toBe(200);
    return response.json<{ data: LicenceStatus }>().data;
  } finally {
    await app.close();
    await store.close();
  }
}

describe('postern licence', { timeout: 120_000 }, () => {
  it('keygen writes a private key only its owner can read, and this installation trusts the public key', async () => {
    const { workDir, keyFile, publicKey, result } = await trustedKeygen();
    const dataDir = dataDirOf(workDir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
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
    const { workDir, keyFile } = await copyOf(trustedKeygen);
    const trustedFile = path.join(dataDirOf(workDir), 'licence-public-keys');
    const before = readFileSync(keyFile, 'utf8');
    const trustedBefore = readFileSync(trustedFile, 'utf8');
    const again = await postern(workDir, ['licence', 'keygen', '--out', keyFile]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`postern: ${keyFile} exists; not overwriting it (choose another --out)\n`);
    expect(again.stdout).toBe('');
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
    expect(readFileSync(trustedFile, 'utf8')).toBe(trustedBefore);
  });

  it('issue --install installs an evaluation licence that the status then shows', async () => {
    const { workDir, keyFile } = await copyOf(trustedKeygen);
    const started = Date.now();
    const result = await postern(workDir, ['licence', 'issue', '--key', keyFile, '--install']);
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

    expect(await statusFromStore(workDir)).toEqual({
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
    const { workDir, keyFile, publicKey } = await copyOf(untrustedKeygen);
    const result = await postern(workDir, [
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
    const { workDir, keyFile, result } = await copyOf(untrustedKeygen);
    expect(result.stdout.split('\n')[2]).toBe(
      'Not trusted here (--no-trust). Installations trust it through POSTERN_LICENCE_PUBLIC_KEYS.',
    );
    expect(() => statSync(path.join(dataDirOf(workDir), 'licence-public-keys'))).toThrow();
    const install = await postern(workDir, ['licence', 'issue', '--key', keyFile, '--install']);
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
    const workDir = scratch();
    const result = await postern(workDir, ['licence', 'issue', '--key', path.join(workDir, 'unused.pem'), ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('issue names an unreadable or unsuitable key file', async () => {
    const workDir = scratch();
    const missing = await postern(workDir, ['licence', 'issue', '--key', path.join(workDir, 'nope.pem')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`postern: --key: cannot read ${path.join(workDir, 'nope.pem')} (ENOENT)\n`);
    const notAKey = path.join(workDir, 'not-a-key.pem');
    writeFileSync(notAKey, 'hello\n');
    const bad = await postern(workDir, ['licence', 'issue', '--key', notAKey]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe(`postern: --key: ${notAKey} is not a private key in PEM\n`);
  });
});
