import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { promisify } from 'node:util';

/**
 * Throwaway Linux network namespaces for tests. Everything a test creates (sets, rules, veth pairs,
 * addresses) lives inside namespaces it made, so the host's own interfaces, sets and firewall rules
 * are never touched. Namespaces are named `pt-<label>-<pid>-<random>` and removed by name, together
 * with any process still running in them, by {@link removeAllNamespaces} (call it in afterAll).
 */

const execFileAsync = promisify(execFile);
const SYSTEM_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/** The absolute path of a system command, or null. */
export function systemCommand(name: string): string | null {
  for (const dir of SYSTEM_DIRS) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return `${dir}/${name}`;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

/**
 * Null when namespaces can be made here (root, iproute2) and every command in `commands` (name →
 * Debian package) is installed; else what is missing.
 */
export function missingNetnsSupport(commands: Record<string, string> = {}): string | null {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces need it)');
  for (const [command, pkg] of Object.entries({ ip: 'iproute2', ...commands })) {
    if (systemCommand(command) === null) missing.push(`${command} (apt-get install ${pkg})`);
  }
  return missing.length === 0 ? null : missing.join(', ');
}

/** What a command run inside a namespace printed. */
export interface NetnsResult {
  stdout: string;
  stderr: string;
}

export interface Namespace {
  name: string;
  /** The argv prefix that runs a command inside: `['ip', 'netns', 'exec', name]`. */
  prefix: string[];
  /** Runs a command inside the namespace; rejects (with its stderr) when it fails. */
  exec(argv: readonly string[], input?: string): Promise<NetnsResult>;
  /** Starts a long-running command inside the namespace (stopped by {@link removeNamespace}). */
  spawn(argv: readonly string[]): ChildProcess;
}

const created = new Set<string>();
let exitHookInstalled = false;

/** Last resort when afterAll never runs (the runner is killed mid-test): delete what is left on exit. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const name of created) {
      try {
        execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    }
  });
}

/** Creates a uniquely named namespace with its loopback up. */
export async function createNamespace(label: string): Promise<Namespace> {
  const name = `pt-${label}-${process.pid}-${randomBytes(3).toString('hex')}`;
  installExitHook();
  await run(['ip', 'netns', 'add', name]);
  created.add(name);
  const prefix = ['ip', 'netns', 'exec', name];
  const namespace: Namespace = {
    name,
    prefix,
    exec: (argv, input) => run([...prefix, ...argv], input),
    spawn: (argv) => {
      const [file, ...args] = [...prefix, ...argv];
      return spawn(file as string, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    },
  };
  await namespace.exec(['ip', 'link', 'set', 'lo', 'up']);
  return namespace;
}

/** One end of a veth pair: its interface name inside its namespace and its address with prefix. */
export interface VethEnd {
  namespace: Namespace;
  /** At most 15 characters, unique inside its namespace. */
  interfaceName: string;
  /** e.g. `10.77.0.1/24` or `fd00:77::1/64`. */
  address: string;
}

/**
 * Connects two namespaces with a veth pair created directly inside them (never in the host's
 * namespace), gives each end its address and brings both up.
 */
export async function connectNamespaces(a: VethEnd, b: VethEnd): Promise<void> {
  await run([
    'ip',
    'link',
    'add',
    a.interfaceName,
    'netns',
    a.namespace.name,
    'type',
    'veth',
    'peer',
    'name',
    b.interfaceName,
    'netns',
    b.namespace.name,
  ]);
  for (const end of [a, b]) {
    const family = end.address.includes(':') ? '-6' : '-4';
    // IPv6 duplicate address detection would hold the address back for a second or two.
    const flags = family === '-6' ? ['nodad'] : [];
    await end.namespace.exec(['ip', family, 'addr', 'add', end.address, 'dev', end.interfaceName, ...flags]);
    await end.namespace.exec(['ip', 'link', 'set', end.interfaceName, 'up']);
  }
}

/** Kills what still runs inside the namespace, then deletes it (its interfaces and sets go with it). */
export async function removeNamespace(name: string): Promise<void> {
  try {
    const { stdout } = await execFileAsync('ip', ['netns', 'pids', name]);
    for (const pid of stdout
      .split('\n')
      .map(Number)
      .filter((pid) => pid > 0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  } catch {
    // The namespace is already gone or never had processes.
  }
  await execFileAsync('ip', ['netns', 'del', name]).catch(() => undefined);
  created.delete(name);
}

/** Removes every namespace this process created. Safe to call when none exist. */
export async function removeAllNamespaces(): Promise<void> {
  for (const name of [...created]) await removeNamespace(name);
}

async function run(argv: readonly string[], input?: string): Promise<NetnsResult> {
  const [file, ...args] = argv;
  return new Promise((resolve, reject) => {
    const child = execFile(
      file as string,
      args,
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`${argv.join(' ')} failed: ${stderr.trim() || error.message}`));
        else resolve({ stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}
