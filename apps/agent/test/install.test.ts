import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '@postern/test-support';
import { describe, expect, it, onTestFinished } from 'vitest';

/*
 * The agent's install script as the server fills it in, run with --root before it downloads
 * anything. The whole installation (download, checksum, files, unit) runs against a built server in
 * tests/system/agent-install.system.test.ts.
 */

const TEMPLATE = readFileSync(path.join(REPO_ROOT, 'apps/agent/install/install.sh'), 'utf8');
const TOKEN = 'tok_install_8d1e5f0a3c7b9e2d4f6a';
const SHA256 = 'a'.repeat(64);

/** The template with the values the server fills in (apps/server/src/agents/install-script.ts). */
function filled(serverUrl: string): string {
  return TEMPLATE.replaceAll('@POSTERN_SERVER_URL@', serverUrl)
    .replaceAll('@POSTERN_AGENT_SHA256@', SHA256)
    .replaceAll('@POSTERN_VERSION@', '1.9.0');
}

/** A temporary directory, removed when the test ends. */
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-install-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs `script` with `args`; nothing here waits on this process, so a synchronous run is fine. */
function install(script: string, args: string[]) {
  const file = path.join(tempDir(), 'install.sh');
  writeFileSync(file, script);
  const result = spawnSync('sh', [file, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the agent install script', () => {
  it('without a default server (no POSTERN_PUBLIC_URL), refuses to run without --server, in one line', () => {
    const root = tempDir();

    const result = install(filled(''), ['--token', TOKEN, '--root', root]);

    expect(result.status).toBe(1);
    expect(result.stderr).toBe(
      'postern-agent install: --server URL is required: the Postern server has no POSTERN_PUBLIC_URL set, so this script does not know its address\n',
    );
    expect(existsSync(path.join(root, 'opt'))).toBe(false);
    expect(existsSync(path.join(root, 'etc'))).toBe(false);
  });

  it('without a default server, goes on with the --server given', () => {
    // Nothing listens on port 1: the script gets as far as the download, from the server named.
    const result = install(filled(''), ['--token', TOKEN, '--root', tempDir(), '--server', 'http://127.0.0.1:1']);

    expect(result.status).toBe(1);
    expect(result.stdout).toContain('from http://127.0.0.1:1 ...');
    expect(result.stderr).toContain('could not download http://127.0.0.1:1/api/agent/postern-agent.mjs');
  });

  it('with a default server, needs no --server', () => {
    const result = install(filled('http://127.0.0.1:1'), ['--token', TOKEN, '--root', tempDir()]);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('could not download http://127.0.0.1:1/api/agent/postern-agent.mjs');
  });

  it.each([
    ['', '--server URL   the Postern server (required: it has no POSTERN_PUBLIC_URL set)'],
    ['https://postern.example', '--server URL   the Postern server (default: https://postern.example)'],
  ])('says in --help whether --server is required (default %j)', (serverUrl, line) => {
    const result = install(filled(serverUrl), ['--help']);

    expect(result.status).toBe(0);
    expect(result.stdout).toContain(line);
  });
});
