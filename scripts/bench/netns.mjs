// Throwaway network namespaces. Everything the grant benchmark changes in the kernel (veth pairs,
// addresses, ip sets, iptables rules) lives inside namespaces made here, so the host's own
// interfaces, sets and firewall rules are never touched. Names are unique (pb-<label>-<pid>-<hex>)
// and every one made is deleted by removeAllNamespaces(), and synchronously on exit as a last resort.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { run } from './processes.mjs';

const created = new Set();
let exitHookInstalled = false;

/** Null when namespaces, ipset and iptables can be used here; else what is missing. */
export function missingNetnsSupport() {
  const missing = [];
  if (process.getuid?.() !== 0) missing.push('root (network namespaces need it)');
  for (const [command, pkg] of [
    ['ip', 'iproute2'],
    ['ipset', 'ipset'],
    ['iptables', 'iptables'],
    ['nft', 'nftables'],
  ]) {
    if (systemCommand(command) === null) missing.push(`${command} (apt-get install ${pkg})`);
  }
  return missing.length === 0 ? null : missing.join(', ');
}

function systemCommand(name) {
  for (const dir of ['/usr/sbin', '/sbin', '/usr/bin', '/bin']) {
    try {
      accessSync(`${dir}/${name}`, constants.X_OK);
      return `${dir}/${name}`;
    } catch {
      // Not here.
    }
  }
  return null;
}

function installExitHook() {
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

/** A new namespace with its loopback up: { name, prefix, exec(argv, input) }. */
export async function createNamespace(label) {
  const name = `pb-${label}-${process.pid}-${randomBytes(3).toString('hex')}`;
  installExitHook();
  await run(['ip', 'netns', 'add', name]);
  created.add(name);
  const prefix = ['ip', 'netns', 'exec', name];
  const namespace = { name, prefix, exec: (argv, input) => run([...prefix, ...argv], input) };
  await namespace.exec(['ip', 'link', 'set', 'lo', 'up']);
  return namespace;
}

/** A veth pair created directly inside the two namespaces (never in the host's), addressed and up. */
export async function connectNamespaces(a, b) {
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
    await end.namespace.exec(['ip', '-4', 'addr', 'add', end.address, 'dev', end.interfaceName]);
    await end.namespace.exec(['ip', 'link', 'set', end.interfaceName, 'up']);
  }
}

/** Kills what still runs inside a namespace this process made, then deletes it. */
export async function removeNamespace(name) {
  if (!created.has(name)) return;
  try {
    const { stdout } = await run(['ip', 'netns', 'pids', name]);
    for (const pid of stdout.split('\n').map(Number)) {
      if (pid > 0) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }
    }
  } catch {
    // No processes, or the namespace is gone.
  }
  await run(['ip', 'netns', 'del', name]).catch(() => undefined);
  created.delete(name);
}

/** Removes every namespace this process made. Safe to call more than once. */
export async function removeAllNamespaces() {
  for (const name of [...created]) await removeNamespace(name);
}
