import type { CommandResult } from '../command.js';
import type { CommandRunner } from './commands.js';

/** One program run a fake runner saw. */
export interface SeenRun {
  argv: string[];
  input?: string;
}

/**
 * A CommandRunner that records every argv (and its standard input) and answers from `answer`
 * (exit 0 with no output when it returns undefined): the unit tests' stand-in for iptables,
 * ip6tables, conntrack and ipset.
 */
export function fakeRunner(answer: (argv: readonly string[], input?: string) => Partial<CommandResult> | undefined): {
  run: CommandRunner;
  seen: SeenRun[];
} {
  const seen: SeenRun[] = [];
  const run: CommandRunner = (argv, options) => {
    seen.push({ argv: [...argv], ...(options?.input === undefined ? {} : { input: options.input }) });
    const given = answer(argv, options?.input) ?? {};
    return Promise.resolve({ code: 0, signal: null, stdout: '', stderr: '', ...given });
  };
  return { run, seen };
}

export const BASE_TABLE = ['-P INPUT ACCEPT', '-P FORWARD ACCEPT', '-P OUTPUT ACCEPT'].join('\n');
