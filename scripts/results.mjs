// Test result bookkeeping shared by the test scripts and .ci/run: each suite writes a summary file
// { passed, failed } under test-results/, and the CI sums them.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib.mjs';

export const RESULTS_DIR = path.join(ROOT, 'test-results');

/** Counts from a Vitest JSON report; a missing or unreadable report counts as one failure. */
export function countVitestReport(file) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    // A file that failed to load (syntax error, failing import) has no tests but is a failure too.
    const brokenFiles = (report.testResults ?? []).filter(
      (result) => result.status === 'failed' && (result.assertionResults ?? []).length === 0,
    ).length;
    return { passed: report.numPassedTests ?? 0, failed: (report.numFailedTests ?? 0) + brokenFiles };
  } catch {
    return { passed: 0, failed: 1 };
  }
}

export function writeSummary(suite, counts) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path.join(RESULTS_DIR, `${suite}-summary.json`), JSON.stringify(counts));
}

export function readSummary(suite) {
  const file = path.join(RESULTS_DIR, `${suite}-summary.json`);
  if (!existsSync(file)) return { passed: 0, failed: 1 };
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { passed: 0, failed: 1 };
  }
}

export function printCounts({ passed, failed }) {
  console.log(`${passed} passed, ${failed} failed`);
}
