import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, type RunningProcess } from '@postern/test-support';
import { spawnPosternServer } from './support/postern-server.js';
import { missingBuild, requireTool } from './support/requirements.js';

/**
 * Issue 17 item 2: the embedded SQLite store is single-process, and says so. Two built servers on one
 * data directory: the second stops at start with exactly one line and exit code 2, the first serves on.
 */
describe('two built servers on one SQLite data directory', () => {
  const missing = missingBuild(REPO_ROOT);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-single-process-'));
  let first: RunningProcess | undefined;
  beforeEach((context) => requireTool(context, missing));
  afterAll(async () => {
    await first?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops the second at start with one line, and the first keeps serving', async () => {
    const started = await spawnPosternServer(dataDir);
    first = started.process;
    await first.waitForOutput(/shown only this once/, 30_000);

    const second = await (await spawnPosternServer(dataDir)).process.finished;
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe(
      `postern: the SQLite store in ${dataDir} is in use by another process (pid ${first.child.pid}); ` +
        'SQLite is single-process — use PostgreSQL (DATABASE_URL) to run several servers\n',
    );

    expect((await fetch(`${started.url}/api/system_status`)).status).toBe(200);
    expect(first.child.exitCode).toBeNull();
  });
});
