import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCommand, type CommandResult, type RunOptions } from '../command.js';

/**
 * Runs nft like {@link runCommand}, except that `input` reaches it as a file on standard input.
 *
 * `nft -f -` opens /dev/stdin rather than reading descriptor 0, and Node's stdio pipes are socket
 * pairs, which /dev/stdin cannot open ("Could not open file "/dev/stdin": No such device or
 * address"). So the batch is written to a private file (mode 600, in a fresh directory of mode 700),
 * which is removed before nft starts: only the open descriptor handed to nft keeps it. The argv stays
 * `nft -j -f -`, with no path for a sudoers rule to allow.
 */
export async function runNft(argv: readonly string[], options: RunOptions): Promise<CommandResult> {
  const { input, ...rest } = options;
  if (input === undefined) return runCommand(argv, rest);
  const stdinFd = openedInputFile(input);
  try {
    return await runCommand(argv, { ...rest, stdinFd });
  } finally {
    closeSync(stdinFd);
  }
}

/** A read descriptor on a file holding `content`, already unlinked. */
function openedInputFile(content: string): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-nft-'));
  try {
    const file = path.join(dir, 'batch.json');
    writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
    return openSync(file, 'r');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
