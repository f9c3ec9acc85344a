// npm run test:system: the tests that drive the built product and real things (Chromium, ipset,
// iptables, HAProxy, slapd, SimpleSAMLphp). They need the built app. Without the tools they skip,
// unless POSTERN_REQUIRE_SYSTEM_TESTS=1.
//
// Two lanes run side by side, one Vitest each (tests/system/vitest.config.ts says why): the Chromium
// files, and the rest. Each lane's lines are shown as they come, under its name; each lane writes its
// own JSON report and the counts are summed.
import path from 'node:path';
import { rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { build, ensureDependencies, ensureNodeVersion, ROOT } from './lib.mjs';
import { watchForSilence } from './hang-watchdog.mjs';
import { countVitestReport, printCounts, RESULTS_DIR, writeSummary } from './results.mjs';

ensureNodeVersion();
ensureDependencies();
build();

const LANES = ['system-chromium', 'system'];
// Arguments after `--` (file filters, -t) go to both lanes; a lane with no matching file passes.
const extra = process.argv.slice(2);

const started = Date.now();
const results = await Promise.all(LANES.map((lane) => runLane(lane)));
const counts = { passed: 0, failed: 0 };
for (const result of results) {
  counts.passed += result.passed;
  counts.failed += result.failed;
}
writeSummary('system', counts);
console.log(`\nsystem tests took ${((Date.now() - started) / 1000).toFixed(0)} s`);
printCounts(counts);
process.exit(counts.failed === 0 ? 0 : 1);

/** Runs one lane's Vitest, its output prefixed with the lane's name; resolves to its counts. */
function runLane(lane) {
  const report = path.join(RESULTS_DIR, `${lane}.json`);
  rmSync(report, { force: true });
  const args = [
    'vitest',
    'run',
    '--config',
    'tests/system/vitest.config.ts',
    '--project',
    lane,
    '--passWithNoTests',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...extra,
  ];
  return new Promise((resolve) => {
    const child = spawn('npx', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const prefix = `[${lane}] `;
    for (const stream of [child.stdout, child.stderr]) prefixLines(stream, prefix, process.stdout);
    // The slowest file takes under two minutes: five silent minutes mean a stuck test.
    const watch = watchForSilence(child, { silentForMs: 5 * 60_000, name: `${prefix}Vitest` });
    child.on('error', (error) => console.error(`${prefix}could not start Vitest: ${error.message}`));
    // A lane that crashed before writing its report counts as one failure (countVitestReport), and
    // so does one that failed outside any test (an unhandled error, a failing hook file).
    child.on('close', (code) => {
      const counts = countVitestReport(report);
      if (code !== 0 && counts.failed === 0) {
        const how = watch.hung ? 'was stopped' : `exited with ${code ?? 'a signal'}`;
        console.error(`${prefix}Vitest ${how} though no test failed: counted as one failure`);
        counts.failed = 1;
      }
      resolve(counts);
    });
  });
}

/** Copies `stream` to `out` line by line, each line starting with `prefix`. */
function prefixLines(stream, prefix, out) {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) out.write(`${prefix}${line}\n`);
  });
  stream.on('end', () => {
    if (pending !== '') out.write(`${prefix}${pending}\n`);
  });
}
