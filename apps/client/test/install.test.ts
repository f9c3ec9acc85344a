import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@postern/test-support';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { permissions, tempDir } from '../src/test-support/temp-dir.js';

const TEMPLATE = readFileSync(path.join(REPO_ROOT, 'apps/client/install/install.sh'), 'utf8');
const VERSION = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'apps/client/package.json'), 'utf8')) as { version: string }
).version;

/** The template with the values the server fills in (apps/server/src/agents/install-script.ts). */
function filled(serverUrl: string, sha256: string): string {
  return TEMPLATE.replaceAll('@POSTERN_SERVER_URL@', serverUrl)
    .replaceAll('@POSTERN_CLIENT_SHA256@', sha256)
    .replaceAll('@POSTERN_VERSION@', VERSION);
}

/** Serves `bundle` at /api/agent/postern-client.mjs on 127.0.0.1, as the server does. */
async function startServing(bundle: Buffer): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    if (request.url === '/api/agent/postern-client.mjs') response.writeHead(200).end(bundle);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** `startServing` for the test: closed when it ends. */
async function serving(bundle: Buffer): Promise<string> {
  const served = await startServing(bundle);
  onTestFinished(served.close);
  return served.url;
}

/** Runs the script (asynchronously: the bundle is served from this process). */
async function install(
  script: string,
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const file = path.join(tempDir(), 'install-client.sh');
  writeFileSync(file, script);
  const child = spawn('sh', [file, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { status, stdout, stderr };
}

// The real single-file bundle, built once into a temporary file by the build's own script, and
// served for the whole file.
let bundle: Buffer;
let sha256: string;
let bundleUrl: string;
let stopServing: (() => Promise<void>) | undefined;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-client-bundle-'));
  try {
    const file = path.join(dir, 'postern-client.mjs');
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'apps/client/scripts/bundle.mjs'), '--outfile', file]);
    bundle = readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  sha256 = createHash('sha256').update(bundle).digest('hex');
  const served = await startServing(bundle);
  bundleUrl = served.url;
  stopServing = served.close;
}, 60_000);

/**
 * One install with the server's defaults below a new root, made once: the case that looks at it
 * reads it, another installs again over a copy of it. Removed after the file.
 */
let installed: Promise<{ root: string; result: Awaited<ReturnType<typeof install>> }> | undefined;
const installedRoots: string[] = [];
function installedOnce() {
  installed ??= (async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'postern-client-installed-'));
    installedRoots.push(root);
    return { root, result: await install(filled(bundleUrl, sha256), ['--root', root]) };
  })();
  return installed;
}

afterAll(async () => {
  await stopServing?.();
  for (const root of installedRoots) rmSync(root, { recursive: true, force: true });
});

describe('the client install script', { timeout: 60_000 }, () => {
  it('installs the checked bundle, the postern-client command and a config file naming the server', async () => {
    const url = bundleUrl;
    const { root, result } = await installedOnce();

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const bundleFile = path.join(root, 'opt/postern-agent/postern-client.mjs');
    // By its digest: comparing the megabyte buffers element by element took seconds.
    expect(createHash('sha256').update(readFileSync(bundleFile)).digest('hex')).toBe(sha256);
    expect(permissions(statSync(bundleFile).mode)).toBe(0o644);
    const wrapper = path.join(root, 'usr/local/bin/postern-client');
    expect(permissions(statSync(wrapper).mode)).toBe(0o755);
    expect(readFileSync(wrapper, 'utf8')).toContain('exec "$NODE" /opt/postern-agent/postern-client.mjs "$@"');
    const configFile = path.join(root, 'etc/postern-client/config.json');
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ server: url, keyFile: '/etc/postern-client/key' });
    expect(permissions(statSync(configFile).mode)).toBe(0o600);
    expect(permissions(statSync(path.dirname(configFile)).mode)).toBe(0o700);
    expect(execFileSync(process.execPath, [bundleFile, '--version'], { encoding: 'utf8' })).toBe(`${VERSION}\n`);
  });

  it('keeps a config file an operator wrote', async () => {
    const url = bundleUrl;
    const first = await installedOnce();
    expect(first.result.status).toBe(0);
    const root = tempDir();
    cpSync(first.root, root, { recursive: true });
    const configFile = path.join(root, 'etc/postern-client/config.json');
    writeFileSync(configFile, JSON.stringify({ server: url, knocs: ['Backup DB'] }));

    const again = await install(filled(url, sha256), ['--root', root]);

    expect(again.status).toBe(0);
    expect(again.stdout).toContain('Kept /etc/postern-client/config.json');
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ server: url, knocs: ['Backup DB'] });
  });

  it('refuses a download that does not match the checksum, installing nothing', async () => {
    const url = await serving(Buffer.from('console.log("not the client")\n'));
    const root = tempDir();

    const result = await install(filled(url, sha256), ['--root', root]);

    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/does not match the checksum in this script/);
    expect(existsSync(path.join(root, 'opt/postern-agent/postern-client.mjs'))).toBe(false);
    expect(existsSync(path.join(root, 'usr/local/bin/postern-client'))).toBe(false);
  });

  it('refuses to run as the unfilled template', async () => {
    const result = await install(TEMPLATE, ['--root', tempDir()]);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('unfilled template');
  });

  it('runs none of itself when the download is cut short, wherever the cut falls', async () => {
    const script = filled(bundleUrl, sha256);
    // Cut after the argument checks, in the middle of the install, and one byte before the end.
    for (const cut of [script.indexOf('# ---- '), Math.floor(script.length / 2), script.length - 2]) {
      const root = tempDir();

      const result = await install(script.slice(0, cut), ['--root', root]);

      expect(result.status, `cut at ${cut}`).not.toBe(0);
      expect(result.stdout, `cut at ${cut}`).toBe('');
      expect(readdirSync(root), `cut at ${cut}`).toEqual([]);
    }
  });

  it('without a default server (no POSTERN_PUBLIC_URL), refuses to run without --server, in one line', async () => {
    const root = tempDir();

    const result = await install(filled('', sha256), ['--root', root]);

    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'postern-client install: --server URL is required: the Postern server has no POSTERN_PUBLIC_URL set, so this script does not know its address\n',
    );
    expect(existsSync(path.join(root, 'opt'))).toBe(false);
  });

  it('without a default server, installs from the --server given and names it in the config file', async () => {
    const url = bundleUrl;
    const root = tempDir();

    const result = await install(filled('', sha256), ['--root', root, '--server', url]);

    expect(result.status, result.stderr).toBe(0);
    const configFile = path.join(root, 'etc/postern-client/config.json');
    expect(JSON.parse(readFileSync(configFile, 'utf8'))).toEqual({ server: url, keyFile: '/etc/postern-client/key' });
  });

  it('refuses a server URL with characters a URL does not need', async () => {
    const result = await install(filled('http://127.0.0.1:1', sha256), [
      '--root',
      tempDir(),
      '--server',
      'https://x.example/$(id)',
    ]);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('characters a server URL does not need');
  });
});
