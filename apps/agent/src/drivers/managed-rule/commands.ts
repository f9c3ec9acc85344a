import path from 'node:path';
import { findExecutable, runCommand, type CommandResult, type RunOptions } from '../command.js';

/** Runs one program with an argument array (never a shell); tests pass their own to see the argv. */
export type CommandRunner = (argv: readonly string[], options?: RunOptions) => Promise<CommandResult>;

export const defaultRunner: CommandRunner = (argv, options) => runCommand(argv, options);

/** The argv of each program the managed rule runs, before its own arguments. */
export interface ManagedRuleCommands {
  iptables: readonly string[];
  iptablesRestore: readonly string[];
  ip6tables: readonly string[];
  ip6tablesRestore: readonly string[];
  conntrack: readonly string[];
}

/**
 * The programs run the way ipset is run: `ipsetCommand`'s prefix (`sudo -n`, or `ip netns exec <ns>`
 * in tests) with each program in place of ipset, found in PATH or the sbin directories. An agent on
 * sudo therefore needs its sudoers rule to name these programs too.
 */
export function commandsLike(ipsetCommand: readonly string[]): ManagedRuleCommands {
  const last = ipsetCommand.at(-1);
  const prefix = last !== undefined && path.basename(last) === 'ipset' ? ipsetCommand.slice(0, -1) : [];
  const command = (name: string) => [...prefix, findExecutable(name) ?? name];
  return {
    iptables: command('iptables'),
    iptablesRestore: command('iptables-restore'),
    ip6tables: command('ip6tables'),
    ip6tablesRestore: command('ip6tables-restore'),
    conntrack: command('conntrack'),
  };
}
