// npm test: type checks, lint and formatting, then every workspace's unit, component and API tests.
// Each check counts as one result next to the tests; the last line is "N passed, N failed".
import path from 'node:path';
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ensureDependencies, ensureNodeVersion, run, runInParallel } from './lib.mjs';
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
// Longest first: lint (typed, about as long as all the type checks together) beside the rest.
const checks = [
  { name: 'lint', command: ['npx', 'eslint', '.'] },
  ...WORKSPACES.map((workspace) => ({ name: `typecheck ${workspace}`, command: ['npx', 'tsc', '-p', workspace] })),
  { name: 'formatting', command: ['npx', 'prettier', '--check', '--log-level', 'warn', '.'] },
];

// The checks are single-threaded and independent: one per core.
const counts = { passed: 0, failed: 0 };
for (const ok of await runInParallel(checks, availableParallelism())) counts[ok ? 'passed' : 'failed'] += 1;

const report = path.join(RESULTS_DIR, 'unit.json');
rmSync(report, { force: true });
console.log('\n> unit, component and API tests');
run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]);
const tests = countVitestReport(report);
counts.passed += tests.passed;
counts.failed += tests.failed;

writeSummary('unit', counts);
console.log('');
printCounts(counts);
process.exit(counts.failed === 0 ? 0 : 1);
