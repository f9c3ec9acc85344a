import type { KnocResult } from './grants.js';
import { statusName, statusText } from './knocs.js';

/**
 * What a command produced: its exit code, the JSON document `--json` prints, the lines a person
 * reads, and for a failure the one line that goes to stderr.
 */
export interface CommandResult {
  exitCode: number;
  document: Record<string, unknown>;
  lines: string[];
  problem?: string;
  /** Things that worked but deserve a look (plain http, a loose key file); printed on stderr. */
  warnings?: string[];
}

/** Where output goes; injected so tests read it. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** The process's own streams. */
export const processOutput: Output = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/** Prints a result: the JSON document or the text lines on stdout, the problem (if any) on stderr. */
export function printResult(output: Output, result: CommandResult, json: boolean): void {
  if (json) output.stdout(`${JSON.stringify(result.document, null, 2)}\n`);
  else if (result.lines.length > 0) output.stdout(`${result.lines.join('\n')}\n`);
  for (const warning of result.warnings ?? []) output.stderr(`postern-client: warning: ${warning}\n`);
  if (result.problem !== undefined) output.stderr(`postern-client: ${result.problem}\n`);
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** `2030-01-01 18:00:00 +01:00`: an instant in this machine's time zone, the same in every locale. */
export function localTime(ms: number): string {
  const date = new Date(ms);
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())} ${zone}`
  );
}

/** An ISO instant as local time followed by the ISO form: `2030-01-01 18:00:00 +01:00 (2030-01-01T17:00:00.000Z)`. */
export function whenText(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : `${localTime(ms)} (${new Date(ms).toISOString()})`;
}

/** One line a knoc: its name, its state, and until when it is granted or why not. */
export function knocLines(results: readonly KnocResult[]): string[] {
  const width = Math.max(0, ...results.map((result) => result.name.length));
  return results.map((result) => {
    const name = `  ${result.name.padEnd(width)}  `;
    if (result.ok) {
      const until = result.expiresAt === null ? '' : ` until ${whenText(result.expiresAt)}`;
      return `${name}${statusText(result.status)}${until}`;
    }
    return `${name}NOT GRANTED: ${result.error}`;
  });
}

/**
 * A knoc's result as --json prints it. JSON output names its fields as the Postern API does
 * (PascalCase); Status is the grant status's name, StatusCode its number.
 */
export function knocJson(result: KnocResult): Record<string, unknown> {
  return {
    ID: result.id,
    Name: result.name,
    Granted: result.ok,
    Status: statusName(result.status),
    StatusCode: result.status,
    ExpiresAt: result.expiresAt,
    Error: result.error,
  };
}

/** `retryInSeconds` → `RetryInSeconds`: the JSON spelling of a field. */
export function pascalCase(name: string): string {
  return `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}

/** The stderr line for knocs that were not granted: each one's name and reason. */
export function notGrantedProblem(results: readonly KnocResult[]): string {
  const failed = results.filter((result) => !result.ok);
  const reasons = failed.map((result) => `"${result.name}": ${result.error}`).join('; ');
  return `${failed.length} of ${results.length} knoc${results.length === 1 ? '' : 's'} not granted: ${reasons}`;
}
