import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { AgentKnocOf } from '@postern/protocol';
import { capture, freePort, waitFor, type RunningProcess } from '@postern/test-support';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseAclList, parseShowAclEntries } from '../../apps/agent/src/drivers/haproxy/haproxy-output.js';
import { HaproxyDriver } from '../../apps/agent/src/drivers/haproxy/haproxy-driver.js';
import type { DriverEntry } from '../../apps/agent/src/drivers/index.js';
import { systemCommand } from './support/netns.js';
import { requireTool } from './support/requirements.js';

/**
 * The HAProxy driver against a real haproxy started by this file: its runtime API on a unix socket
 * and on 127.0.0.1, and a frontend that answers 200 to sources in the ACL loaded from an (empty)
 * file and 403 to everyone else. Clients pick their source among 127.0.0.0/8 with curl --interface.
 */
const HAPROXY = systemCommand('haproxy');
const CURL = systemCommand('curl');
const missing =
  [HAPROXY === null ? 'haproxy (apt-get install haproxy)' : null, CURL === null ? 'curl (apt-get install curl)' : null]
    .filter((item) => item !== null)
    .join(', ') || null;

const execFileAsync = promisify(execFile);

let dir: string;
let haproxy: RunningProcess | undefined;
let adminSocket: string;
let tcpRuntime: string;
let frontendPort: number;
let aclId: string;
let driver: HaproxyDriver;

beforeAll(async () => {
  if (missing !== null || HAPROXY === null) return;
  dir = await mkdtemp(path.join(tmpdir(), 'postern-haproxy-'));
  adminSocket = path.join(dir, 'admin.sock');
  const aclFile = path.join(dir, 'granted.acl');
  await writeFile(aclFile, '');
  frontendPort = await freePort();
  const runtimePort = await freePort();
  tcpRuntime = `127.0.0.1:${runtimePort}`;
  await writeFile(
    path.join(dir, 'haproxy.cfg'),
    [
      'global',
      `  stats socket ${adminSocket} level admin`,
      `  stats socket ipv4@${tcpRuntime} level admin`,
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 5s',
      '  timeout server 5s',
      'frontend protected',
      `  bind 127.0.0.1:${frontendPort}`,
      `  acl granted src -f ${aclFile}`,
      '  http-request deny deny_status 403 if !granted',
      '  http-request return status 200 content-type text/plain string granted',
      '',
    ].join('\n'),
  );
  // -db: stay in the foreground, so this process owns haproxy and stops it by its PID.
  haproxy = capture(
    spawn(HAPROXY, ['-db', '-f', path.join(dir, 'haproxy.cfg')], { stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  await waitFor(() => canConnect(adminSocket), 'the haproxy runtime socket', 10_000);
  // The knoc's ACL ID is the number haproxy gave the ACL loaded from our file.
  const acl = parseAclList(await runtimeCommand('show acl')).find((item) => item.file === aclFile);
  if (acl === undefined) throw new Error('haproxy does not list the ACL file');
  aclId = acl.id;
  driver = new HaproxyDriver({ socket: { kind: 'unix', path: adminSocket }, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await driver?.close();
  if (haproxy?.child.pid !== undefined && haproxy.child.exitCode === null) {
    process.kill(haproxy.child.pid, 'SIGKILL');
    await haproxy.finished.catch(() => undefined);
  }
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});
beforeEach(async (context) => {
  requireTool(context, missing);
  await runtimeCommand(`clear acl #${aclId}`);
});

function knoc(backend: { Protocol: 'unix' | 'tcp'; Address: string }, id = aclId): AgentKnocOf<'haproxy'> {
  return {
    aclId: 'acl-haproxy',
    name: 'Intranet',
    url: '',
    backendId: 'backend-haproxy',
    backendType: 'haproxy',
    backend,
    acl: { ID: id },
  };
}

const unixKnoc = () => knoc({ Protocol: 'unix', Address: adminSocket });
const entry = (ip: string): DriverEntry => ({ ip, ttlSeconds: 300, userName: 'alice' });

/** One runtime API command in haproxy's one-shot mode, independently of the driver. */
function runtimeCommand(command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(adminSocket);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.end(`${command}\n`);
  });
}

/** The ACL's patterns as haproxy reports them. */
async function patterns(): Promise<string[]> {
  return parseShowAclEntries((await runtimeCommand(`show acl #${aclId}`)).trim());
}

/** The status code haproxy's frontend gives a request from `source`. */
async function statusFrom(source: string): Promise<string> {
  const { stdout } = await execFileAsync(CURL ?? 'curl', [
    '--silent',
    '--output',
    '/dev/null',
    '--write-out',
    '%{http_code}',
    '--interface',
    source,
    `http://127.0.0.1:${frontendPort}/`,
  ]);
  return stdout;
}

function canConnect(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.on('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * A runtime socket in front of haproxy's that turns `add acl … <from>` into an add of `<to>`: haproxy
 * answers success, and the ACL does not hold what was asked for, as when another client cleared it.
 */
async function rewritingSocket(from: string, to: string): Promise<{ path: string; server: Server }> {
  const socketPath = path.join(dir, `rewrite-${Date.now()}.sock`);
  const server = createServer((client) => {
    const upstream = connect(adminSocket);
    upstream.pipe(client);
    let pending = '';
    client.setEncoding('utf8');
    client.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      upstream.write(
        lines.map((line) => `${line.replace(new RegExp(`^(add acl \\S+) ${from}$`), `$1 ${to}`)}\n`).join(''),
      );
    });
    client.on('close', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return { path: socketPath, server };
}

describe('HAProxy driver: closed-loop verification', () => {
  it('fails an add the ACL does not hold afterwards, though haproxy answered success', async () => {
    const rewriting = await rewritingSocket('127.0.0.99', '127.0.0.98');
    try {
      const outcomes = await driver.apply(knoc({ Protocol: 'unix', Address: rewriting.path }), [
        entry('127.0.0.97'),
        entry('127.0.0.99'),
      ]);
      expect(outcomes).toEqual([
        { ip: '127.0.0.97', ok: true, error: '' },
        { ip: '127.0.0.99', ok: false, error: `ACL #${aclId} does not hold 127.0.0.99 after adding it` },
      ]);
      expect((await patterns()).sort()).toEqual(['127.0.0.97', '127.0.0.98']);
    } finally {
      await new Promise((resolve) => rewriting.server.close(resolve));
    }
  });
});

describe('HAProxy driver', () => {
  it('lets a granted 127.0.0.x source through the frontend ACL while others get 403', async () => {
    expect(await statusFrom('127.0.0.2')).toBe('403');

    const outcomes = await driver.apply(unixKnoc(), [entry('127.0.0.2')]);

    expect(outcomes).toEqual([{ ip: '127.0.0.2', ok: true, error: '' }]);
    expect(await statusFrom('127.0.0.2')).toBe('200');
    expect(await statusFrom('127.0.0.3')).toBe('403');
  });

  it('closes the door again on remove', async () => {
    await driver.apply(unixKnoc(), [entry('127.0.0.2')]);

    const outcomes = await driver.remove(unixKnoc(), [entry('127.0.0.2')]);

    expect(outcomes[0]?.ok).toBe(true);
    expect(await patterns()).toEqual([]);
    expect(await statusFrom('127.0.0.2')).toBe('403');
  });

  it('adds an address once however often it is applied (haproxy itself would duplicate it)', async () => {
    await driver.apply(unixKnoc(), [entry('127.0.0.2')]);
    await driver.apply(unixKnoc(), [entry('127.0.0.2'), entry('127.0.0.2/32')]);

    expect(await patterns()).toEqual(['127.0.0.2']);
  });

  it('treats removing an absent address as done, and removes every spelling of a present one', async () => {
    await runtimeCommand(`add acl #${aclId} 127.0.0.4/32`);

    const outcomes = await driver.remove(unixKnoc(), [entry('127.0.0.9'), entry('127.0.0.4')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(await patterns()).toEqual([]);
  });

  it('adds a host even when a network around it is already in the ACL', async () => {
    await runtimeCommand(`add acl #${aclId} 10.0.0.0/8`);

    await driver.apply(unixKnoc(), [entry('10.0.0.1')]);

    expect((await patterns()).sort()).toEqual(['10.0.0.0/8', '10.0.0.1']);
  });

  it('removes many addresses at once, whatever their stored spelling', async () => {
    const entries = Array.from({ length: 100 }, (_, index) => entry(`10.40.0.${index}`));
    await driver.apply(unixKnoc(), entries);
    await runtimeCommand(`add acl #${aclId} 10.40.0.200/32`);

    const outcomes = await driver.remove(unixKnoc(), [...entries, entry('10.40.0.200')]);

    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(await patterns()).toEqual([]);
  });

  it('lists the addresses the ACL holds, IPv6 and networks included, canonically', async () => {
    await driver.apply(unixKnoc(), [entry('127.0.0.2'), entry('2001:DB8::7'), entry('10.1.0.0/16')]);

    expect((await driver.list(unixKnoc())).sort()).toEqual(['10.1.0.0/16', '127.0.0.2', '2001:db8::7']);
  });

  it('flushes every address of the ACL', async () => {
    await driver.apply(unixKnoc(), [entry('127.0.0.2'), entry('127.0.0.3')]);

    await driver.flush(unixKnoc());

    expect(await patterns()).toEqual([]);
  });

  it('talks to the runtime API over tcp', async () => {
    const tcpKnoc = knoc({ Protocol: 'tcp', Address: tcpRuntime });

    await driver.apply(tcpKnoc, [entry('127.0.0.5')]);

    expect(await driver.list(tcpKnoc)).toEqual(['127.0.0.5']);
    expect(await statusFrom('127.0.0.5')).toBe('200');
  });

  it("uses the agent's configured socket when the backend's Address is empty", async () => {
    await driver.apply(knoc({ Protocol: 'unix', Address: '' }), [entry('127.0.0.6')]);

    expect(await patterns()).toEqual(['127.0.0.6']);
  });

  it('fails only the entry that is not an address, never sending it to haproxy', async () => {
    const outcomes = await driver.apply(unixKnoc(), [entry('127.0.0.2;clear acl #0'), entry('127.0.0.3')]);

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, true]);
    expect(await patterns()).toEqual(['127.0.0.3']);
  });

  it("fails the whole call with haproxy's words when the ACL ID is unknown", async () => {
    await expect(
      driver.apply(knoc({ Protocol: 'unix', Address: adminSocket }, '999'), [entry('127.0.0.2')]),
    ).rejects.toThrow('Unknown ACL identifier');
  });

  it('fails the whole call when the runtime socket is not there', async () => {
    await expect(
      driver.apply(knoc({ Protocol: 'unix', Address: path.join(dir, 'missing.sock') }), [entry('127.0.0.2')]),
    ).rejects.toThrow('cannot use the HAProxy runtime API');
  });

  it('adds 2,000 addresses on one connection, and concurrent calls never duplicate one', async () => {
    const entries = Array.from({ length: 2000 }, (_, index) => entry(`10.30.${index >> 8}.${index & 255}`));

    const [first, second] = await Promise.all([driver.apply(unixKnoc(), entries), driver.apply(unixKnoc(), entries)]);

    expect([...first, ...second].every((outcome) => outcome.ok)).toBe(true);
    expect(await patterns()).toHaveLength(2000);
  });
});
