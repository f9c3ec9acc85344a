// npm run coverage: line and branch coverage (Vitest's V8 provider) of the server, the agent, the
// client, the protocol package and the web app by the unit, component and API tests, printed per
// workspace and written to test-results/coverage/ (an HTML report and coverage-summary.json).
//
// Not part of `npm test`: instrumenting costs about a third more time, and the figures are for a
// person comparing before and after a change (a test removed or merged must not lower them), not a
// gate. Extra arguments go to Vitest (`npm run coverage -- --project server`).
import path from 'node:path';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { ensureDependencies, ensureNodeVersion, ROOT, runAsync } from './lib.mjs';

ensureNodeVersion();
ensureDependencies();

const WORKSPACES = ['apps/server', 'apps/agent', 'apps/client', 'apps/web', 'packages/protocol'];
const REPORT_DIR = path.join(ROOT, 'test-results', 'coverage');

rmSync(REPORT_DIR, { recursive: true, force: true });
const code = await runAsync('npx', [
  'vitest',
  'run',
  '--coverage.enabled',
  '--coverage.provider=v8',
  `--coverage.reportsDirectory=${REPORT_DIR}`,
  '--coverage.reporter=json-summary',
  '--coverage.reporter=html',
  ...WORKSPACES.map((workspace) => `--coverage.include=${workspace}/src/**/*.{ts,tsx}`),
  // Tests and their support code are not what is measured.
  '--coverage.exclude=**/*.test.{ts,tsx}',
  '--coverage.exclude=**/test-support/**',
  ...process.argv.slice(2),
]);

const summaryFile = path.join(REPORT_DIR, 'coverage-summary.json');
if (!existsSync(summaryFile)) {
  console.error('No coverage summary was written.');
  process.exit(1);
}
printByWorkspace(JSON.parse(readFileSync(summaryFile, 'utf8')));
process.exit(code);

/** One line per workspace: covered/total lines and branches, summed over its files. */
function printByWorkspace(summary) {
  console.log('\nworkspace            lines                 branches');
  for (const workspace of WORKSPACES) {
    const prefix = path.join(ROOT, workspace) + path.sep;
    const totals = { lines: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } };
    for (const [file, figures] of Object.entries(summary)) {
      if (!file.startsWith(prefix)) continue;
      for (const kind of ['lines', 'branches']) {
        totals[kind].covered += figures[kind].covered;
        totals[kind].total += figures[kind].total;
      }
    }
    const cell = ({ covered, total }) =>
      `${total === 0 ? '—' : ((100 * covered) / total).toFixed(2) + ' %'} (${covered}/${total})`.padEnd(22);
    console.log(`${workspace.padEnd(21)}${cell(totals.lines)}${cell(totals.branches)}`);
  }
}
