import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/** A private temporary directory, removed when the test ends. */
export function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-client-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The permission bits of a file's mode. */
export function permissions(mode: number): number {
  return mode & 0o777;
}
