import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOTH_STORES_FILES, BOTH_STORES_PLACES } from './store-kinds.js';

/*
 * The store-kinds rule (store-kinds.ts, README "Store kinds"), read off the server's test files: a
 * file runs on PostgreSQL only where the rule lets it, and every feature that uses the store has a
 * file that does.
 */
const SERVER = path.resolve(import.meta.dirname, '../..');

/**
 * Files that still call the old testStoreKinds() because other branches were changing them when
 * the rule came. Whoever merges those branches moves each to bothStores() (when the rule allows it)
 * or to 'sqlite', and removes it here; the test fails for an entry that no longer calls it.
 */
const PENDING: readonly string[] = [
  'src/agent-hub/agent-enrolment.api.test.ts',
  'src/agent-hub/disconnect-recorder.api.test.ts',
  'src/agent-hub/entry-ttl.api.test.ts',
  'src/agent-hub/last-seen-recorder.api.test.ts',
  'src/auth/auth.api.test.ts',
  'src/auth/device-cookie.api.test.ts',
  'src/auth/key-sign-in.api.test.ts',
  'src/auth/ldap-sign-in.api.test.ts',
  'src/auth/password.api.test.ts',
  'src/auth/second-factor.api.test.ts',
  'src/auth/sign-in-throttle.api.test.ts',
  'src/auth/throttle.test.ts',
  'src/health/clock-watch.api.test.ts',
  'src/health/health.api.test.ts',
  'src/http/route-table.api.test.ts',
  'src/settings/settings.api.test.ts',
];

/** Where the store kinds are decided; nothing else outside a test file may choose them. */
const KIND_MODULES = ['src/test-support/store-kinds.ts', 'src/test-support/test-app.ts'];

/** Every .ts file under `dir` (relative to apps/server/, with forward slashes). */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(SERVER, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${dir}/${name.split(path.sep).join('/')}`)
    .sort();
}

interface Source {
  file: string;
  isTest: boolean;
  /** Calls bothStores(). */
  both: boolean;
  /** Calls the old testStoreKinds(). */
  legacy: boolean;
  /** Names PostgreSQL itself: createTestApp('postgres'), describe.each(['sqlite', 'postgres']), … */
  literal: boolean;
}

const POSTGRES_LITERAL =
  /(?:\b(?:createTestApp|createTestStore|useTestApp|use\w+World)\(\s*|\.each\(\s*\[[^\]]*)'postgres'/;

/** This file names what it looks for. */
const SELF = 'src/test-support/store-kinds-rule.test.ts';

const sources: Source[] = [...tsFiles('src'), ...tsFiles('test')]
  .filter((file) => file !== SELF)
  .map((file) => {
    const text = readFileSync(path.join(SERVER, file), 'utf8');
    return {
      file,
      isTest: file.endsWith('.test.ts'),
      both: /\bbothStores\(\)/.test(text),
      legacy: /\btestStoreKinds\(\)/.test(text),
      literal: POSTGRES_LITERAL.test(text),
    };
  });

const allowed = (file: string) => BOTH_STORES_PLACES.some((place) => place.test(file)) || file in BOTH_STORES_FILES;
const runsOnPostgres = (source: Source) => source.both || source.legacy || source.literal;
/** The feature a file belongs to: its folder under src/ (null for src/ itself and for test/). */
const featureOf = (file: string) => /^src\/([^/]+)\//.exec(file)?.[1] ?? null;

/** The features whose code reads or writes the store. */
const storeFeatures = [
  ...new Set(
    sources
      .filter((source) => !source.isTest && featureOf(source.file) !== 'test-support')
      .filter((source) =>
        /\.(?:selectFrom|insertInto|updateTable|deleteFrom)\(|Kysely<Database>/.test(
          readFileSync(path.join(SERVER, source.file), 'utf8'),
        ),
      )
      .map((source) => featureOf(source.file))
      .filter((feature) => feature !== null),
  ),
].sort();

describe('which server tests run on PostgreSQL', () => {
  it('runs a test file on PostgreSQL only where the rule allows it', () => {
    const outside = sources
      .filter((source) => source.isTest && (source.both || source.literal) && !allowed(source.file))
      .map((source) => source.file);
    expect(
      outside,
      'not allowed by store-kinds.ts: use useTestApp("sqlite"), or add the file there with its reason',
    ).toEqual([]);
  });

  it('lets only test files choose the store kinds, so a support module cannot run a file on both', () => {
    const choosing = sources
      .filter((source) => !source.isTest && !KIND_MODULES.includes(source.file) && runsOnPostgres(source))
      .map((source) => source.file);
    expect(choosing).toEqual([]);
  });

  it('keeps the old testStoreKinds() to the files still pending, and the pending list to files that call it', () => {
    const legacy = sources.filter((source) => source.isTest && source.legacy).map((source) => source.file);
    expect(
      legacy.filter((file) => !PENDING.includes(file)),
      'call bothStores() or name sqlite',
    ).toEqual([]);
    expect(
      PENDING.filter((file) => !legacy.includes(file)),
      'no longer pending: remove from PENDING',
    ).toEqual([]);
  });

  it('names in BOTH_STORES_FILES only test files that run on both stores', () => {
    const stale = Object.keys(BOTH_STORES_FILES).filter(
      (file) => !sources.some((source) => source.file === file && source.isTest && runsOnPostgres(source)),
    );
    expect(stale).toEqual([]);
  });

  it('gives every feature that uses the store a test file on both stores, and at most one smoke file', () => {
    expect(storeFeatures.length).toBeGreaterThan(10);
    const bare = storeFeatures.filter(
      (feature) =>
        !sources.some((source) => source.isTest && featureOf(source.file) === feature && runsOnPostgres(source)),
    );
    expect(bare, 'add a smoke file for the feature to BOTH_STORES_FILES').toEqual([]);
    const smokes = Object.entries(BOTH_STORES_FILES)
      .filter(([, reason]) => reason === 'smoke')
      .map(([file]) => featureOf(file));
    expect(smokes.filter((feature, index) => smokes.indexOf(feature) !== index)).toEqual([]);
  });
});
