// Helpers for the root npm scripts. Plain Node only: these run before dependencies are installed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MINIMUM_NODE = [20, 19];

/** Stops with a clear message on a Node.js older than the project supports. */
export function ensureNodeVersion() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor < MINIMUM_NODE[1])) {
    console.error(`Postern needs Node.js ${MINIMUM_NODE.join('.')} or newer (this is ${process.versions.node}).`);
    process.exit(1);
  }
}

/** Runs a command in the repository, output shown; returns its exit code. */
export function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
  if (result.error) {
    console.error(`could not run ${command}: ${result.error.message}`);
    return 1;
  }
  return result.status ?? 1;
}

/** Runs a command in the repository, output shown as it comes; resolves to its exit code. */
export function runAsync(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: 'inherit', ...options });
    child.on('error', (error) => {
      console.error(`could not run ${command}: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/**
 * Runs commands (`{ name, command: [file, ...args] }`), at most `parallelism` at a time, each one's
 * output held back and printed whole under its name when it ends, so parallel output never
 * interleaves. Resolves to each command's success, in the order given.
 */
export async function runInParallel(commands, parallelism) {
  const results = new Array(commands.length);
  let next = 0;
  const worker = async () => {
    while (next < commands.length) {
      const index = next++;
      results[index] = await runHeldBack(commands[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(parallelism, commands.length)) }, worker));
  return results;
}

function runHeldBack({ name, command: [file, ...args] }) {
  const started = Date.now();
  return new Promise((resolve) => {
    const output = [];
    const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    let finished = false;
    // A command that cannot start emits 'error' and then 'close': report it once.
    const finish = (ok, note = '') => {
      if (finished) return;
      finished = true;
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`\n> ${name} (${seconds} s)\n${Buffer.concat(output).toString()}${note}`);
      if (!ok) console.error(`${name} failed`);
      resolve(ok);
    };
    child.on('error', (error) => finish(false, `could not run ${file}: ${error.message}\n`));
    child.on('close', (code) => finish(code === 0));
  });
}

/** Runs a command and stops the script when it fails. */
export function runOrExit(command, args, options = {}) {
  const code = run(command, args, options);
  if (code !== 0) process.exit(code);
}

/**
 * Installs dependencies when node_modules is missing or older than the lockfile (npm writes
 * node_modules/.package-lock.json at the end of every install).
 */
export function ensureDependencies() {
  const lockfile = path.join(ROOT, 'package-lock.json');
  const installed = path.join(ROOT, 'node_modules', '.package-lock.json');
  const current = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lockfile).mtimeMs;
  if (current && sqliteDriverBuilt()) return;
  console.log('Installing dependencies (the first time this compiles the SQLite driver; it takes a minute or two)...');
  runOrExit('npm', ['ci', '--no-audit', '--no-fund']);
  if (sqliteDriverBuilt()) return;
  // On Node 20 the driver is an optional dependency compiled at install time, and npm drops an
  // optional dependency whose build failed without saying so. Try once more with its output shown.
  console.log('The SQLite driver was not built; installing again with the build output shown...');
  runOrExit('npm', ['ci', '--no-audit', '--no-fund', '--foreground-scripts']);
  if (sqliteDriverBuilt()) return;
  console.error('The SQLite driver (better-sqlite3) could not be compiled: it needs python3, make and g++ on Node 20.');
  process.exit(1);
}

/** Node 22+ uses the prebuilt Node-API driver; Node 20 needs better-sqlite3 12 compiled here. */
function sqliteDriverBuilt() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return true;
  return existsSync(path.join(ROOT, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'));
}

/** What each build step reads and how it builds. Later steps depend on earlier ones. */
const SHARED_INPUTS = [
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.build.base.json',
  'packages/protocol/src',
  'packages/protocol/package.json',
];
const TARGETS = [
  {
    name: 'protocol',
    dir: 'packages/protocol',
    inputs: ['packages/protocol'],
    build: () => tsc('packages/protocol'),
  },
  {
    name: 'server',
    dir: 'apps/server',
    inputs: ['apps/server/src', 'apps/server/package.json', 'apps/server/tsconfig.build.json'],
    build: () => tsc('apps/server') || makeExecutable('apps/server/dist/main.js'),
  },
  {
    name: 'agent',
    dir: 'apps/agent',
    inputs: [
      'apps/agent/src',
      'apps/agent/scripts',
      'apps/agent/package.json',
      'apps/agent/tsconfig.build.json',
      'scripts/bundle-node-program.mjs',
    ],
    // Then the single-file bundle the server hands to the install script.
    build: () =>
      tsc('apps/agent') ||
      makeExecutable('apps/agent/dist/main.js') ||
      run('node', [path.join(ROOT, 'apps/agent/scripts/bundle.mjs')]),
  },
  {
    name: 'client',
    dir: 'apps/client',
    inputs: [
      'apps/client/src',
      'apps/client/scripts',
      'apps/client/package.json',
      'apps/client/tsconfig.build.json',
      'scripts/bundle-node-program.mjs',
    ],
    // Then the single-file bundle the server hands to the client's install script.
    build: () =>
      tsc('apps/client') ||
      makeExecutable('apps/client/dist/main.js') ||
      run('node', [path.join(ROOT, 'apps/client/scripts/bundle.mjs')]),
  },
  {
    name: 'web',
    dir: 'apps/web',
    // The whole app folder (newestMtime skips node_modules and dist): sources, public files, configs.
    inputs: ['apps/web'],
    build: () => run('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: path.join(ROOT, 'apps/web') }),
  },
];

function tsc(packageDir) {
  rmSync(path.join(ROOT, packageDir, 'dist'), { recursive: true, force: true });
  return run('npx', ['tsc', '-p', path.join(packageDir, 'tsconfig.build.json')]);
}

function makeExecutable(file) {
  chmodSync(path.join(ROOT, file), 0o755);
  return 0;
}

/**
 * Builds every part whose sources changed since its last build (a stamp file in its dist records
 * when). `force` rebuilds everything.
 */
export function build({ force = false, only } = {}) {
  for (const target of TARGETS) {
    if (only !== undefined && !only.includes(target.name)) continue;
    const stamp = path.join(ROOT, target.dir, 'dist', '.build-stamp');
    const newestInput = Math.max(
      ...[...SHARED_INPUTS, ...target.inputs].map((input) => newestMtime(path.join(ROOT, input))),
    );
    if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput) continue;
    console.log(`Building ${target.name}...`);
    const code = target.build();
    if (code !== 0) {
      console.error(`Building ${target.name} failed.`);
      process.exit(code);
    }
    mkdirSync(path.dirname(stamp), { recursive: true });
    writeFileSync(stamp, new Date().toISOString());
  }
}

/** The newest modification time of a file, or of any file below a directory (0 when missing). */
function newestMtime(target) {
  if (!existsSync(target)) return 0;
  const stats = statSync(target);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(target)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  }
  return newest;
}
