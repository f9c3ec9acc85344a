// npm test: every workspace's unit, component and API tests, and beside them type checks, lint and
// formatting.
// Each check counts as one result next to the tests; the last line is "N passed, N failed".
import path from 'node:path';
import { rmSync } from 'node:fs';
import { ensureDependencies, ensureNodeVersion, ROOT, runInParallel } from './lib.mjs';
import { runWithHangWatchdog } from './hang-watchdog.mjs';
import { countVitestReport, printCounts, RESULTS_DIR, writeSummary } from './results.mjs';

ensureNodeVersion();
ensureDependencies();

const WORKSPACES = [
  'packages/protocol',
  'packages/test-support',
  'apps/server',
  'apps/agent',
  'apps/client',
  'apps/web',
  '.',
];
// Longest first: lint (typed, about as long as all the type checks together), then the rest.
const checks = [
  { name: 'lint', command: ['npx', 'eslint', '.'] },
  ...WORKSPACES.map((workspace) => ({ name: `typecheck ${workspace}`, command: ['npx', 'tsc', '-p', workspace] })),
  { name: 'formatting', command: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'] },
];

// The checks run one at a time beside the tests, not before them: the tests leave part of both cores
// idle while they wait (PostgreSQL, the commands the CLI tests start, deadlines), which the
// single-threaded checks fill. Each check's output is printed whole when it ends.
const report = path.join(RESULTS_DIR, 'unit.json');
rmSync(report, { force: true });
console.log('> unit, component and API tests, and beside them the checks');
// The slowest test file takes about half a minute: five silent minutes mean a stuck test worker.
const [checkResults, vitest] = await Promise.all([
  runInParallel(checks, 1),
  runWithHangWatchdog(
    'npx',
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`],
    {
      cwd: ROOT,
      // Output goes through a pipe now: keep the colours a terminal would have shown.
      env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env,
      silentForMs: 5 * 60_000,
      name: 'Vitest',
    },
  ),
]);
const counts = { passed: 0, failed: 0 };
for (const ok of checkResults) counts[ok ? 'passed' : 'failed'] += 1;
const tests = countVitestReport(report);
counts.passed += tests.passed;
counts.failed += tests.failed;
// An error outside any test (an unhandled rejection, a broken setup file) fails the run, not a test.
if (vitest.code !== 0 && tests.failed === 0) {
  console.error(
    `Vitest ${vitest.hung ? 'was stopped' : `exited with ${vitest.code}`} though no test failed: counted as one failure`,
  );
  counts.failed += 1;
}

writeSummary('unit', counts);
console.log('');
printCounts(counts);
process.exit(counts.failed === 0 ? 0 : 1);
