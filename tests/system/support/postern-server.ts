import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { capture, cleanEnv, freePort, REPO_ROOT, type RunningProcess } from '@postern/test-support';

/** A built Postern server on its own port and fresh data directory. */
export interface PosternServer {
  url: string;
  /** The password printed for postern-admin on first start. */
  adminPassword: string;
  process: RunningProcess;
  stop(): Promise<void>;
}

const PASSWORD_LINE = /Its password is shown only this once:\n\n\s+(\S+)\n/;

/** Starts `node apps/server/dist/main.js` exactly as `npm start` runs it, on 127.0.0.1. */
export async function startPosternServer(settings: Record<string, string> = {}): Promise<PosternServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'postern-system-'));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'apps/server/dist/main.js'), 'serve'], {
    cwd: REPO_ROOT,
    env: cleanEnv(['POSTERN_', 'DATABASE_URL'], {
      POSTERN_DATA_DIR: dataDir,
      POSTERN_PORT: String(port),
      POSTERN_HOST: '127.0.0.1',
      POSTERN_LOG_LEVEL: 'warn',
      ...settings,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = capture(child);
  const stop = async () => {
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await running.waitForOutput(PASSWORD_LINE, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const adminPassword = PASSWORD_LINE.exec(running.stdout())?.[1] ?? '';
  return { url: `http://127.0.0.1:${port}`, adminPassword, process: running, stop };
}
