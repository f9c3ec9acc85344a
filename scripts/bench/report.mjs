// Percentiles, the machine description, and the figures as a console table and as docs/benchmarks.md.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The value below which `p` (0..1) of the samples lie (nearest rank). */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export const ms = (value, digits = 2) => `${value.toFixed(digits)} ms`;

/** What machine the figures were taken on. */
export function machineDescription() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // Not Linux: os.cpus() has it.
  }
  return [
    ['CPUs (nproc)', String(os.availableParallelism())],
    ['CPU model', cpu],
    ['memory', `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`],
    ['kernel', `${os.type()} ${os.release()}`],
    ['Node.js', process.version],
    ['load average at the start (1, 5, 15 min)', LOAD_AT_START.map((load) => load.toFixed(2)).join(', ')],
    ['date', new Date().toISOString()],
  ];
}

/** The load when the benchmark started: other work on the machine skews every figure. */
const LOAD_AT_START = os.loadavg();

/** A warning when the machine was busy before the benchmark began, else null. */
export function busyMachineWarning() {
  const [oneMinute] = LOAD_AT_START;
  return oneMinute > os.availableParallelism() / 2
    ? `the machine was busy when the benchmark started (load average ${oneMinute.toFixed(2)} on ${os.availableParallelism()} CPUs): the figures are slower than on an idle machine`
    : null;
}

/**
 * A figure row: { name, value, target?, met? } where `met` is true/false when a target applies.
 * Sections: [{ title, rows, notes? }].
 */
export function printSections(sections, skipped) {
  const all = sections.flatMap((section) => section.rows);
  const width = Math.max(...all.map((row) => row.name.length));
  const valueWidth = Math.max(...all.map((row) => row.value.length));
  console.log('\nPostern benchmarks');
  for (const [name, value] of machineDescription()) console.log(`  ${name}: ${value}`);
  const warning = busyMachineWarning();
  if (warning !== null) console.log(`  WARNING: ${warning}`);
  for (const section of sections) {
    console.log(`\n${section.title}`);
    for (const row of section.rows) {
      const target = row.target === undefined ? '' : `  target ${row.target}: ${row.met ? 'met' : 'MISSED'}`;
      console.log(`  ${row.name.padEnd(width)}  ${row.value.padEnd(valueWidth)}${target}`);
    }
  }
  for (const line of skipped) console.log(`\nSkipped: ${line}`);
}

function cell(text) {
  return text.replaceAll('|', '\\|');
}

/** Writes docs/benchmarks.md (overwritten on every run). */
export function writeMarkdown(root, sections, skipped, methodNotes) {
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (scripts/bench.mjs and scripts/bench/); every run overwrites this file.',
    'Figures only: nothing fails on a missed target. Targets are for this kind of machine',
    '(2 cores), from issue 4.',
    '',
    '## Machine',
    '',
    '| | |',
    '| --- | --- |',
    ...machineDescription().map(([name, value]) => `| ${cell(name)} | ${cell(value)} |`),
  ];
  const warning = busyMachineWarning();
  if (warning !== null) lines.push('', `**Warning:** ${warning}.`);
  for (const section of sections) {
    lines.push('', `## ${section.title}`, '', '| figure | value | target | |', '| --- | --- | --- | --- |');
    for (const row of section.rows) {
      const met = row.target === undefined ? '' : row.met ? 'met' : '**missed**';
      lines.push(`| ${cell(row.name)} | ${cell(row.value)} | ${cell(row.target ?? '')} | ${met} |`);
    }
  }
  if (skipped.length > 0) lines.push('', '## Skipped', '', ...skipped.map((line) => `- ${line}`));
  if (methodNotes.length > 0)
    lines.push('', '## How the figures are taken', '', ...methodNotes.map((line) => `- ${line}`));
  const file = path.join(root, 'docs/benchmarks.md');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
