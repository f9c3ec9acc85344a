// npm run dev: the server from source (restarting on change) on :8080 and Vite's dev server on :5173,
// which proxies /api to it. Open http://localhost:5173. Ctrl+C stops both.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureDependencies, ensureNodeVersion, ROOT } from './lib.mjs';

ensureNodeVersion();
ensureDependencies();

const children = [
  spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', '--watch', path.join(ROOT, 'apps/server/src/main.ts'), 'serve'],
    { cwd: ROOT, stdio: 'inherit', env: { POSTERN_DATA_DIR: path.join(ROOT, 'data'), ...process.env } },
  ),
  spawn('npx', ['vite'], { cwd: path.join(ROOT, 'apps/web'), stdio: 'inherit' }),
];

const stop = () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
for (const child of children) child.on('exit', stop);
