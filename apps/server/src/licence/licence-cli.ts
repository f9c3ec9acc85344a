import { closeSync, fchmodSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createPrivateKey, randomUUID, type KeyObject } from 'node:crypto';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { USER_LIMIT_OVERAGE_MAX_PERCENT } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { loadConfig } from '../config/config.js';
import { prepareDataDir } from '../config/data-dir.js';
import { BadRequestError, ConflictError } from '../errors.js';
import {
  generateLicenceKeyPair,
  issueLicence,
  LicencePayload,
  privateKeyPem,
  publicKeyBase64,
} from './licence-format.js';
import { appendTrustedKey } from './licence-keys.js';
import { installLicence } from './licence.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** A hundred years: far enough for any licence, near enough that the date stays representable. */
const MAX_DAYS = 36_525;

/** An evaluation licence unless told otherwise. */
const ISSUE_DEFAULTS = {
  licensee: 'Evaluation',
  users: 25,
  sessions: 3,
  machines: 0,
  overage: 20,
  days: 30,
} as const;

const DEFAULT_KEY_FILE = 'postern-licence-key.pem';

interface KeygenOptions {
  out: string;
  trust: boolean;
}

interface IssueOptions {
  key: string;
  licensee: string;
  users: number;
  sessions: number;
  machines: number;
  overage: number;
  days?: number;
  expires?: string;
  id?: string;
  install?: boolean;
}

/**
 * `postern licence keygen` and `postern licence issue`. `withContext` opens the store for work that
 * needs it (installing a licence), exactly as the other commands do.
 */
export function registerLicenceCommands(
  program: Command,
  withContext: (work: (ctx: AppContext) => Promise<void>) => Promise<void>,
): void {
  const licence = program.command('licence').description('make signing keys and issue licence keys');

  licence
    .command('keygen')
    .description('create an Ed25519 key pair for signing licences; this installation trusts it unless --no-trust')
    .option('-o, --out <file>', 'where to write the private key (PKCS#8 PEM, mode 600)', DEFAULT_KEY_FILE)
    .option('--no-trust', "do not add the public key to this installation's trusted keys")
    .action((options: KeygenOptions) => {
      keygen(options);
    });

  licence
    .command('issue')
    .description('sign a licence with a private key and print it; --install also installs it here')
    .requiredOption('-k, --key <file>', 'private key written by postern licence keygen')
    .option('--licensee <name>', 'who the licence is for', ISSUE_DEFAULTS.licensee)
    .option('--users <n>', 'user limit (admins are not counted)', wholeNumber(1), ISSUE_DEFAULTS.users)
    .option('--sessions <n>', 'concurrent sessions per user', wholeNumber(1), ISSUE_DEFAULTS.sessions)
    .option('--machines <n>', 'agents allowed, 0 for no limit', wholeNumber(0), ISSUE_DEFAULTS.machines)
    .option(
      '--overage <percent>',
      `users allowed over the limit, 0-${USER_LIMIT_OVERAGE_MAX_PERCENT} percent`,
      wholeNumber(0, USER_LIMIT_OVERAGE_MAX_PERCENT),
      ISSUE_DEFAULTS.overage,
    )
    .addOption(
      new Option('--days <n>', `valid for this many days (default ${ISSUE_DEFAULTS.days})`)
        .argParser(wholeNumber(1, MAX_DAYS))
        .conflicts('expires'),
    )
    .addOption(new Option('--expires <YYYY-MM-DD>', 'valid to the end of this day (UTC)').argParser(isoDay))
    .option('--id <id>', 'licence ID (default: a random UUID)')
    .option('--install', "also install the licence into this installation's store")
    .action(async (options: IssueOptions) => {
      const text = issueFromOptions(options, Date.now());
      process.stdout.write(`${text}\n`);
      if (options.install !== true) return;
      await withContext(async (ctx) => {
        const status = await installLicence(ctx, {}, text);
        process.stdout.write(
          `Installed licence ${status.ID} for ${status.Licensee}: ${status.UserLimit} users ` +
            `(+${status.UserLimitOveragePercentage}% overage), ${status.SessionLimit} sessions per user, ` +
            `expires ${(status.Expires ?? '').slice(0, 10)}.\n`,
        );
      });
    });
}

function keygen(options: KeygenOptions): void {
  // Check the data directory before writing anything, so a failure leaves no orphaned private key.
  const dataDir = options.trust ? loadConfig().dataDir : null;
  if (dataDir !== null) prepareDataDir(dataDir);

  const file = path.resolve(options.out);
  const { privateKey, publicKey } = generateLicenceKeyPair();
  writeNewPrivateFile(file, privateKeyPem(privateKey));
  const publicB64 = publicKeyBase64(publicKey);
  process.stdout.write(`Wrote the private key to ${file} (mode 600). Keep it secret: it signs licences.\n`);
  process.stdout.write(`Public key: ${publicB64}\n`);
  if (dataDir === null) {
    process.stdout.write(
      'Not trusted here (--no-trust). Installations trust it through POSTERN_LICENCE_PUBLIC_KEYS.\n',
    );
    return;
  }
  const trustedFile = appendTrustedKey(
    dataDir,
    publicB64,
    `added by postern licence keygen, ${new Date().toISOString()}`,
  );
  process.stdout.write(`This installation now trusts it (${trustedFile}).\n`);
}

/** Builds and signs the licence the options describe. */
function issueFromOptions(options: IssueOptions, now: number): string {
  const expires =
    options.expires === undefined
      ? new Date(now + (options.days ?? ISSUE_DEFAULTS.days) * DAY_MS)
      : new Date(`${options.expires}T23:59:59.000Z`);
  if (expires.getTime() <= now)
    throw new BadRequestError({ extra: `--expires: ${options.expires ?? ''} is not in the future` });
  const payload = LicencePayload.safeParse({
    ID: options.id ?? randomUUID(),
    Licensee: options.licensee,
    UserLimit: options.users,
    UserLimitOveragePercentage: options.overage,
    SessionLimit: options.sessions,
    MaxMachines: options.machines,
    IssuedAt: new Date(now).toISOString(),
    Expires: expires.toISOString(),
  });
  if (!payload.success) {
    const issue = payload.error.issues[0];
    throw new BadRequestError({ extra: `${issue?.path.join('.') ?? 'licence'}: ${issue?.message ?? 'invalid'}` });
  }
  return issueLicence(payload.data, readPrivateKey(options.key));
}

function readPrivateKey(file: string): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BadRequestError({ extra: `--key: cannot read ${file} (${errorCode(error)})` });
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new BadRequestError({ extra: `--key: ${file} is not a private key in PEM` });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new BadRequestError({ extra: `--key: ${file} is not an Ed25519 key (made by postern licence keygen)` });
  }
  return key;
}

/** Creates `file` with mode 0600 and writes `text`; never replaces an existing file. */
function writeNewPrivateFile(file: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if (errorCode(error) === 'EEXIST') {
      throw new ConflictError({ extra: `${file} exists; not overwriting it (choose another --out)` });
    }
    throw new BadRequestError({ extra: `--out: cannot create ${file} (${errorCode(error)})` });
  }
  try {
    // The umask may have narrowed the mode further but never widened it; make it exact.
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A commander parser for a whole number from `min` to `max`. */
function wholeNumber(min: number, max = 1_000_000) {
  return (value: string): number => {
    const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

function isoDay(value: string): string {
  const day = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
    throw new InvalidArgumentError('must be a date as YYYY-MM-DD');
  }
  // Date.parse accepts 2026-02-30 by rolling over; insist on a real calendar day.
  if (new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) {
    throw new InvalidArgumentError('must be a real calendar day');
  }
  return day;
}

function errorCode(error: unknown): string {
  return error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
}
