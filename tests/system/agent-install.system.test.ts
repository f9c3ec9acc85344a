import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditActions, POSTERN_VERSION, type AgentRecord, type AuditEntry } from '@postern/protocol';
import { capture, REPO_ROOT, waitFor, type RunningProcess } from '@postern/test-support';
import { AdminApi } from './support/admin-api.js';
import { startPosternServer, type PosternServer } from './support/postern-server.js';
import { requireTool } from './support/requirements.js';
import { missingCommands } from './support/tools.js';

/**
 * The console's one-liner, `curl -fsSL <server>/api/agent/install.sh | sh -s -- --token …`, run for
 * real against a built server, installing into a temporary root directory (--root, --no-start), then
 * the installed agent and unit file checked with the tools a host would use.
 */
const BUILT_FILES = ['apps/server/dist/main.js', 'apps/agent/dist/postern-agent.mjs'];

function missingPrerequisites(): string | null {
  const unbuilt = BUILT_FILES.find((file) => !existsSync(path.join(REPO_ROOT, file)));
  if (unbuilt !== undefined) return `the build (${unbuilt}); run npm run build`;
  return missingCommands({ curl: 'curl', sha256sum: 'coreutils' });
}

/** Loopback traffic must not go through a proxy the environment may name. */
const ENV = { ...process.env, no_proxy: '127.0.0.1,localhost', NO_PROXY: '127.0.0.1,localhost' };

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a shell command line without blocking this process, which may itself be serving what the
 * command downloads.
 */
function sh(script: string, args: string[], env: NodeJS.ProcessEnv = ENV): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script, 'sh', ...args], { env, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe('agent install script', () => {
  const missing = missingPrerequisites();
  let server: PosternServer | undefined;
  let admin: AdminApi | undefined;
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    if (missing !== null) return;
    server = await startPosternServer({}, 'sqlite');
    admin = await AdminApi.signIn(server);
  });
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    await server?.stop();
  });
  beforeEach((context) => requireTool(context, missing));

  const running = () => {
    if (server === undefined || admin === undefined) throw new Error('the server did not start');
    return { server, admin };
  };
  const newRoot = () => {
    const root = mkdtempSync(path.join(tmpdir(), 'postern-agent-root-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    return root;
  };
  /**
   * The console's one-liner, with the extra arguments given. The server has no POSTERN_PUBLIC_URL, so
   * the console names the server with --server (the address the browser used), as here.
   */
  const oneLiner = (url: string, args: string[]) =>
    sh('url=$1; shift; curl -fsSL "$url/api/agent/install.sh" | sh -s -- --server "$url" "$@"', [url, ...args]);
  const savedScript = async () => {
    const { server } = running();
    const file = path.join(newRoot(), 'install.sh');
    writeFileSync(file, await (await fetch(`${server.url}/api/agent/install.sh`)).text());
    return file;
  };

  it('installs the agent, its configuration, token and systemd unit into a root directory', async () => {
    const { server, admin } = running();
    const agent = await admin.call<AgentRecord>('POST', '/api/admin/agents', { Name: 'install-test' });
    const root = newRoot();

    const result = await oneLiner(server.url, ['--token', agent.Token, '--root', root, '--no-start']);
    expect(result.status, result.stderr).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toContain(agent.Token);

    // The bundle, byte for byte what the server serves, and the checksum the server announced.
    const bundleFile = path.join(root, 'opt/postern-agent/postern-agent.mjs');
    const served = await fetch(`${server.url}/api/agent/postern-agent.mjs`);
    const servedBytes = Buffer.from(await served.arrayBuffer());
    expect(readFileSync(bundleFile).equals(servedBytes)).toBe(true);
    expect(createHash('sha256').update(servedBytes).digest('hex')).toBe(served.headers.get('x-postern-agent-sha256'));
    expect(mode(bundleFile)).toBe('644');
    expect(readdirSync(path.dirname(bundleFile))).toEqual(['postern-agent.mjs']);

    // Configuration and token: the token only in a root-only file in a root-only directory.
    const configDir = path.join(root, 'etc/postern-agent');
    expect(mode(configDir)).toBe('700');
    expect(mode(path.join(configDir, 'token'))).toBe('600');
    expect(readFileSync(path.join(configDir, 'token'), 'utf8')).toBe(`${agent.Token}\n`);
    const configFile = path.join(configDir, 'config.json');
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({
      serverUrl: server.url,
      tokenFile: '/etc/postern-agent/token',
      stateFile: '/var/lib/postern-agent/state.json',
    });
    expect(readFileSync(configFile, 'utf8')).not.toContain(agent.Token);
    expect(mode(path.join(root, 'var/lib/postern-agent'))).toBe('700');

    // The unit file.
    const unitFile = path.join(root, 'etc/systemd/system/postern-agent.service');
    expect(mode(unitFile)).toBe('644');
    const unit = readFileSync(unitFile, 'utf8');
    const lines = unit.split('\n');
    for (const line of [
      'ExecStart=/usr/bin/env node /opt/postern-agent/postern-agent.mjs run --config /etc/postern-agent/config.json',
      'Restart=always',
      'RestartSec=5',
      'CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_RAW CAP_NET_BIND_SERVICE',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
      'WantedBy=multi-user.target',
    ]) {
      expect(lines).toContain(line);
    }
    expect(unit).not.toContain(agent.Token);

    // The unit parses: systemd-analyze prints a line for any key or value it does not accept.
    if (existsSync('/usr/bin/systemd-analyze')) {
      const verify = spawnSync('systemd-analyze', ['verify', unitFile], { encoding: 'utf8' });
      expect(verify.status, verify.stderr).toBe(0);
      expect(`${verify.stdout}${verify.stderr}`).toBe('');
    }

    // The installed agent runs on this Node and accepts the configuration (paths moved below root).
    const version = spawnSync(process.execPath, [bundleFile, '--version'], { encoding: 'utf8' });
    expect(version.stdout.trim()).toBe(POSTERN_VERSION);
    const check = spawnSync(
      process.execPath,
      [
        bundleFile,
        'check-config',
        '--config',
        configFile,
        '--token-file',
        path.join(configDir, 'token'),
        '--state-file',
        path.join(root, 'var/lib/postern-agent/state.json'),
      ],
      { encoding: 'utf8' },
    );
    expect(check.status, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ serverUrl: server.url, token: '[set]' });
  });

  it('reinstalled with a rotated token, replaces the token and keeps the settings an operator added', async () => {
    const { server, admin } = running();
    const agent = await admin.call<AgentRecord>('POST', '/api/admin/agents', { Name: 'reinstall-test' });
    const root = newRoot();
    expect((await oneLiner(server.url, ['--token', agent.Token, '--root', root, '--no-start'])).status).toBe(0);
    const configFile = path.join(root, 'etc/postern-agent/config.json');
    const written = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    const edited = { ...written, ipset: { allowedSets: ['postern4'] } };
    writeFileSync(configFile, JSON.stringify(edited));

    const rotated = await admin.call<AgentRecord>('POST', `/api/admin/agents/${agent.ID}/token`);
    const again = await oneLiner(server.url, ['--token', rotated.Token, '--root', root, '--no-start']);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'etc/postern-agent/token'), 'utf8')).toBe(`${rotated.Token}\n`);
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({
      serverUrl: server.url,
      tokenFile: '/etc/postern-agent/token',
      stateFile: '/var/lib/postern-agent/state.json',
      ipset: { allowedSets: ['postern4'] },
    });
  });

  /** The agent installed below `root`, run with its installed configuration (paths moved below root). */
  const runInstalled = (root: string): RunningProcess => {
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'opt/postern-agent/postern-agent.mjs'),
        'run',
        ...['--config', path.join(root, 'etc/postern-agent/config.json')],
        ...['--token-file', path.join(root, 'etc/postern-agent/token')],
        ...['--state-file', path.join(root, 'var/lib/postern-agent/state.json')],
      ],
      { env: { ...ENV, POSTERN_AGENT_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const running = capture(child);
    cleanups.push(() => running.stop());
    return running;
  };
  const agentRecord = (id: string) => running().admin.call<AgentRecord>('GET', `/api/admin/agents/${id}`);
  const auditOf = async (action: string, agentName: string) =>
    (await running().admin.call<AuditEntry[]>('GET', '/api/admin/logs'))
      .map((entry) => entry.Entry[action])
      .filter((detail) => detail?.AgentName === agentName);

  it('runs the installed agent, which enrols a key file of mode 600 that a reinstall keeps, and refuses the token on another host', async () => {
    const { server, admin } = running();
    const agent = await admin.call<AgentRecord>('POST', '/api/admin/agents', { Name: 'enrol-test' });
    const root = newRoot();
    expect((await oneLiner(server.url, ['--token', agent.Token, '--root', root, '--no-start'])).status).toBe(0);
    const keyFile = path.join(root, 'var/lib/postern-agent/agent-key.pem');
    expect(existsSync(keyFile)).toBe(false);

    const first = runInstalled(root);
    await waitFor(async () => (await agentRecord(agent.ID)).Online, 'the installed agent to connect', 30_000);
    const enrolled = await agentRecord(agent.ID);
    expect(enrolled.EnrolledAt).not.toBeNull();
    expect(mode(keyFile)).toBe('600');
    expect(mode(path.dirname(keyFile))).toBe('700');
    // The fingerprint the agent logs is the one the console shows, so an operator can match them.
    await first.waitForOutput(/created the agent key/);
    const created = first
      .stdout()
      .split('\n')
      .filter((line) => line.includes('created the agent key'))
      .map((line) => JSON.parse(line) as { keyFingerprint: string });
    expect(created.map((line) => line.keyFingerprint)).toEqual([enrolled.KeyFingerprint]);
    const key = readFileSync(keyFile);
    expect(first.stdout()).not.toContain(key.toString('utf8').split('\n')[1]);

    // Another host installed with the same (spent) token makes its own key, which is refused.
    const otherRoot = newRoot();
    expect((await oneLiner(server.url, ['--token', agent.Token, '--root', otherRoot, '--no-start'])).status).toBe(0);
    const other = runInstalled(otherRoot);
    await other.waitForOutput(/the server refused this agent's key/, 30_000);
    expect((await agentRecord(agent.ID)).Online).toBe(true);
    expect((await agentRecord(agent.ID)).KeyFingerprint).toBe(enrolled.KeyFingerprint);
    await waitFor(
      async () => (await auditOf(AuditActions.AgentAuthFailed, 'enrol-test')).length > 0,
      'the refusal in the audit log',
    );
    await other.stop();

    // Reinstalling on the first host (the console's one-liner again) keeps the key, which still connects.
    expect((await first.stop()).code).toBe(0);
    await waitFor(async () => !(await agentRecord(agent.ID)).Online, 'the agent to go offline');
    const again = await oneLiner(server.url, ['--token', agent.Token, '--root', root, '--no-start']);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(keyFile).equals(key)).toBe(true);
    expect(mode(keyFile)).toBe('600');
    runInstalled(root);
    await waitFor(async () => (await agentRecord(agent.ID)).Online, 'the reinstalled agent to connect', 30_000);
    expect(await agentRecord(agent.ID)).toMatchObject({
      EnrolledAt: enrolled.EnrolledAt,
      KeyFingerprint: enrolled.KeyFingerprint,
    });
    expect(await auditOf(AuditActions.AgentEnrolled, 'enrol-test')).toHaveLength(1);
  });

  it('refuses a downloaded bundle whose checksum differs from the one in the script, and installs nothing', async () => {
    const { server } = running();
    const impostor: Server = createServer((_request, response) => response.end('console.log("not the agent")\n'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => impostor.close(resolve)));
    const { port } = impostor.address() as AddressInfo;
    const root = newRoot();
    const token = createHash('sha256').update('install-test').digest('base64url');

    const result = await oneLiner(server.url, [
      '--token',
      token,
      '--server',
      `http://127.0.0.1:${port}`,
      '--root',
      root,
    ]);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('does not match the checksum');
    expect(readdirSync(path.join(root, 'opt/postern-agent'))).toEqual([]);
    expect(existsSync(path.join(root, 'etc/postern-agent'))).toBe(false);
  });

  it('runs none of itself when the download is cut short, wherever the cut falls', async () => {
    const { server, admin } = running();
    const agent = await admin.call<AgentRecord>('POST', '/api/admin/agents', { Name: 'cut-short' });
    const script = await (await fetch(`${server.url}/api/agent/install.sh`)).text();
    // Cut after the argument checks, in the middle of the install, and one byte before the end.
    for (const cut of [script.indexOf('# ---- '), Math.floor(script.length / 2), script.length - 2]) {
      const root = newRoot();
      const truncated = path.join(root, 'truncated.sh');
      writeFileSync(truncated, script.slice(0, cut));
      const result = await sh('file=$1; shift; sh -s -- "$@" < "$file"', [
        truncated,
        '--server',
        server.url,
        '--token',
        agent.Token,
        '--root',
        root,
        '--no-start',
      ]);
      expect(result.status, `cut at ${cut}`).not.toBe(0);
      expect(result.stdout, `cut at ${cut}`).toBe('');
      expect(readdirSync(root), `cut at ${cut}`).toEqual(['truncated.sh']);
    }
  });

  it('refuses to run without a token, and names the missing option', async () => {
    const script = await savedScript();
    const result = await sh('sh "$@"', [script, '--root', newRoot()]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('--token is required');
  });

  it('without POSTERN_PUBLIC_URL, refuses to run without --server, whatever Host it was fetched with', async () => {
    const { server } = running();
    const root = newRoot();
    const token = createHash('sha256').update('no-server').digest('base64url');
    const result = await sh(
      'url=$1; shift; curl -fsSL -H "Host: evil.example" "$url/api/agent/install.sh" | sh -s -- "$@"',
      [server.url, '--token', token, '--root', root],
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'postern-agent install: --server URL is required: the Postern server has no POSTERN_PUBLIC_URL set, so this script does not know its address\n',
    );
    expect(readdirSync(root)).toEqual([]);
  });

  it('never repeats an argument it does not understand, which may be the token', async () => {
    const script = await savedScript();
    const token = createHash('sha256').update('stray').digest('base64url');
    const result = await sh('sh "$@"', [script, token, '--root', newRoot()]);
    expect(result.status).toBe(1);
    expect(`${result.stdout}${result.stderr}`).not.toContain(token);
  });

  it('says clearly that Node.js 20 or newer is needed when the host has an older one', async () => {
    const script = await savedScript();
    const bin = newRoot();
    const fakeNode = path.join(bin, 'node');
    writeFileSync(fakeNode, '#!/bin/sh\ncase $1 in -p) echo 18 ;; --version) echo v18.19.0 ;; esac\n');
    chmodSync(fakeNode, 0o755);
    const token = createHash('sha256').update('old-node').digest('base64url');
    const result = await sh(
      'sh "$@"',
      [script, '--token', token, '--server', running().server.url, '--root', newRoot()],
      {
        ...ENV,
        PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Node.js 20 or newer is required; this host has v18.19.0');
  });
});
