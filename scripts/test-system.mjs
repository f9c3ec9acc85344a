// npm run test:system: the tests that drive real things (Chromium, and later ipset, iptables, haproxy,
// slapd). They need the built app. Without the tools they skip, unless POSTERN_REQUIRE_SYSTEM_TESTS=1.
import path from 'node:path';
import { rmSync } from 'node:fs';
import { build, ensureDependencies, ensureNodeVersion, run } from './lib.mjs';
import { countVitestReport, printCounts, RESULTS_DIR, writeSummary } from './results.mjs';

ensureNodeVersion();
ensureDependencies();
build();

const report = path.join(RESULTS_DIR, 'system.json');
rmSync(report, { force: true });
run('npx', [
  'vitest',
  'run',
  '--config',
  'tests/system/vitest.config.ts',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
]);
const counts = countVitestReport(report);
writeSummary('system', counts);
console.log('');
printCounts(counts);
process.exit(counts.failed === 0 ? 0 : 1);
