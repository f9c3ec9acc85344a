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
  /** Names PostgreSQL itself: createTestApp('postgres'), describe.each(['sqlite', 'postgres']), … */
  literal: boolean;
}

const POSTGRES_LITERAL =
  /(?:\b(?:createTestApp|createTestStore|useTestApp|useTestStore|use\w+World)\(\s*|\.each\(\s*\[[^\]]*)'postgres'/;

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
      literal: POSTGRES_LITERAL.test(text),
    };
  });

const allowed = (file: string) => BOTH_STORES_PLACES.some((place) => place.test(file)) || file in BOTH_STORES_FILES;
const runsOnPostgres = (source: Source) => source.both || source.literal;
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
