import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { POSTERN_VERSION } from '@postern/protocol';
import { cleanEnv, REPO_ROOT } from '@postern/test-support';
import { missingBuild, requireTool } from './support/requirements.js';

/**
 * Issue 17 item 6: scripts/install-server.sh, run into a scratch root (--root) because systemd is not
 * PID 1 here and the test must not make users on the machine. It checks what a Debian host gets: the
 * app with the server's production dependencies only, the settings file, the directories and their
 * modes, the hardened unit (verified by systemd-analyze when it is installed), and that a second run
 * upgrades in place, keeping the settings. The installed app then migrates a store on its own.
 */
const SCRIPT = path.join(REPO_ROOT, 'scripts/install-server.sh');

function install(root: string) {
  return spawnSync('sh', [SCRIPT, '--root', root, '--no-build'], { cwd: REPO_ROOT, encoding: 'utf8' });
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe('the server install script', { timeout: 120_000 }, () => {
  const missing = missingBuild(REPO_ROOT);
  const root = mkdtempSync(path.join(tmpdir(), 'postern-install-root-'));
  const at = (file: string) => path.join(root, file);
  beforeEach((context) => requireTool(context, missing));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('installs the app, settings, directories, the hardened unit and the command', () => {
    const result = install(root);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`installed ${POSTERN_VERSION} in /opt/postern/app`);

    const app = at('opt/postern/app');
    for (const file of [
      'apps/server/dist/main.js',
      'apps/web/dist/index.html',
      'apps/agent/dist/postern-agent.mjs',
      'apps/agent/install/install.sh',
      'docs/agents.md',
    ]) {
      expect(existsSync(path.join(app, file)), file).toBe(true);
    }
    expect(existsSync(path.join(app, 'node_modules/fastify/package.json'))).toBe(true);
    // Only what the server runs on: no build tools, no test tools, no sources.
    for (const absent of ['node_modules/vite', 'node_modules/vitest', 'node_modules/typescript', 'apps/server/src']) {
      expect(existsSync(path.join(app, absent)), absent).toBe(false);
    }

    expect(mode(at('etc/postern'))).toBe(0o750);
    expect(mode(at('etc/postern/postern.env'))).toBe(0o640);
    expect(readFileSync(at('etc/postern/postern.env'), 'utf8')).toMatch(/^POSTERN_DATA_DIR=\/var\/lib\/postern$/m);
    expect(mode(at('var/lib/postern'))).toBe(0o700);
    expect(mode(at('var/backups/postern'))).toBe(0o700);
    expect(mode(at('usr/local/bin/postern'))).toBe(0o755);
    // The command runs as the service user with the service's settings (and resolves paths from where it is run).
    const command = readFileSync(at('usr/local/bin/postern'), 'utf8');
    expect(command).toContain(
      `exec runuser -u postern -- ${process.execPath} --env-file=/etc/postern/postern.env /opt/postern/app/apps/server/dist/main.js "$@"`,
    );
    expect(command).not.toMatch(/^cd /m);

    const unit = readFileSync(at('etc/systemd/system/postern.service'), 'utf8');
    for (const line of [
      'User=postern',
      'EnvironmentFile=/etc/postern/postern.env',
      `ExecStartPre=${process.execPath} /opt/postern/app/apps/server/dist/main.js migrate`,
      `ExecStart=${process.execPath} /opt/postern/app/apps/server/dist/main.js serve`,
      'ReadWritePaths=/var/lib/postern',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'NoNewPrivileges=yes',
      'CapabilityBoundingSet=CAP_NET_BIND_SERVICE',
      'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK',
      'SystemCallFilter=@system-service',
      'WantedBy=multi-user.target',
    ]) {
      expect(unit.split('\n'), line).toContain(line);
    }
  });

  it('passes systemd-analyze verify', (context) => {
    const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
    if (analyze.error !== undefined) {
      context.skip('systemd-analyze is not installed');
      return;
    }
    const verify = spawnSync('systemd-analyze', ['verify', '--man=no', at('etc/systemd/system/postern.service')], {
      encoding: 'utf8',
    });
    // Verify runs outside the root: the installed paths and the postern user do not exist here.
    const complaints = verify.stderr
      .split('\n')
      .filter((line) => line.trim() !== '' && !/\/opt\/postern|postern\.env|user postern|User=postern/i.test(line));
    expect(complaints).toEqual([]);
  });

  it('gives an installed app that migrates a store by itself', () => {
    const dataDir = at('var/lib/postern');
    const migrate = execFileSync(process.execPath, [at('opt/postern/app/apps/server/dist/main.js'), 'migrate'], {
      cwd: at('opt/postern/app'),
      env: cleanEnv(['POSTERN_', 'DATABASE_URL'], { POSTERN_DATA_DIR: dataDir }),
      encoding: 'utf8',
    });
    expect(migrate).toContain(`\nSQLite ${path.join(dataDir, 'postern.db')} is up to date\n`);
    // The directory the script made is as private as the server wants it: no warning about its mode.
    expect(migrate).not.toContain('keeps the store and keys private');
  });

  it('upgrades in place on a second run, keeping the settings and the previous app', () => {
    appendFileSync(at('etc/postern/postern.env'), 'POSTERN_PUBLIC_URL=https://access.example.com\n');
    const result = install(root);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('kept the settings in /etc/postern/postern.env');
    expect(readFileSync(at('etc/postern/postern.env'), 'utf8')).toContain(
      'POSTERN_PUBLIC_URL=https://access.example.com',
    );
    expect(existsSync(at('opt/postern/app.previous/apps/server/dist/main.js'))).toBe(true);
    expect(existsSync(at('opt/postern/app/apps/server/dist/main.js'))).toBe(true);
    expect(existsSync(at('opt/postern/app.new'))).toBe(false);
    // The store made by the first app is still there for the new one.
    expect(existsSync(at('var/lib/postern/postern.db'))).toBe(true);
  });
});
