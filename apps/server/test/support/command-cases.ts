import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import type { RunningProcess } from '@postern/test-support';

/**
 * What the tests of the real `postern` command (test/*cli.test.ts) share: a directory per case
 * under one per file, the servers they start stopped after the file whatever happened, and
 * fixtures made once. See the README of src/test-support, "Tests that start the real command".
 */

/** A server's start-up: module loading, migrations and an argon2 hash, slow on a loaded machine. */
export const START_DEADLINE_MS = 60_000;

export interface CommandCases {
  /** A new directory of the case's, under the file's; removed after the file. */
  scratch: () => string;
  /** Marks `server` as started here: stopped (by PID, if still running) after the file. */
  track: (server: RunningProcess) => RunningProcess;
}

/**
 * Registers an `afterAll` (in the calling test file) that stops the servers tracked and removes
 * the file's directory (`<tmp>/<prefix>…`), and returns what makes them.
 */
export function commandCases(prefix: string): CommandCases {
  // Made at the first case's call, not when the file is collected (vitest list runs no afterAll).
  let root: string | undefined;
  const servers = new Set<RunningProcess>();
  afterAll(async () => {
    await Promise.all([...servers].map((server) => server.stop()));
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });
  return {
    scratch: () => mkdtempSync(path.join((root ??= mkdtempSync(path.join(tmpdir(), prefix))), 'case-')),
    track: (server) => {
      servers.add(server);
      return server;
    },
  };
}

/** The promise of `make`, made at the first call: a fixture several cases start from. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}
