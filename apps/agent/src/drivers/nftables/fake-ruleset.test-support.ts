import type { CommandResult, RunOptions } from '../command.js';

/** One rule of the fake ruleset, as nft lists it in JSON. */
export interface FakeRule {
  handle: number;
  comment?: string;
  expr: unknown[];
}

/** A command of a batch document the fake saw. */
export type SentCommand = Record<string, { rule?: Record<string, unknown> } & Record<string, unknown>>;

/**
 * A stand-in for nft's tables and chains as the managed rule uses them (nft 1.0.6, checked by
 * tests/system/managed-rule-nftables): `nft -j -t -a list table F T` lists the chains and their
 * rules with handles ("No such file or directory" for an absent table); a batch of `insert rule`
 * (to the chain's head) and `delete rule` (by handle) is applied all or nothing (element writes in
 * it are taken without a look: the sets are not faked here); `conntrack` runs
 * are recorded and answered with `conntrackAnswer`.
 */
export class FakeRuleset {
  /** Chains by `family table`, then by chain name, their rules in order. */
  readonly tables = new Map<string, Map<string, FakeRule[]>>();
  readonly calls: { argv: string[]; input: string | undefined }[] = [];
  conntrackAnswer: Partial<CommandResult> = { code: 0 };
  #nextHandle = 100;

  addChain(table: string, chain: string, rules: Omit<FakeRule, 'handle'>[] = []): void {
    const chains = this.tables.get(table) ?? new Map<string, FakeRule[]>();
    chains.set(
      chain,
      rules.map((rule) => ({ ...rule, handle: this.#nextHandle++ })),
    );
    this.tables.set(table, chains);
  }

  rules(table: string, chain: string): FakeRule[] {
    return this.tables.get(table)?.get(chain) ?? [];
  }

  /** The batch documents sent to `nft -j -f -`, each as its commands. */
  batches(): SentCommand[][] {
    return this.calls
      .filter((call) => call.input !== undefined)
      .map((call) => (JSON.parse(call.input ?? '') as { nftables: SentCommand[] }).nftables);
  }

  /** Every argv run, without the program (`-j -t -a list table inet postern`, `-D -p tcp …`). */
  argvs(): string[] {
    return this.calls.map((call) => call.argv.slice(1).join(' '));
  }

  readonly run = (argv: readonly string[], options: RunOptions = {}): Promise<CommandResult> => {
    this.calls.push({ argv: [...argv], input: options.input });
    const result = (code: number, stdout = '', stderr = '') => Promise.resolve({ code, signal: null, stdout, stderr });
    if ((argv[0] ?? '').endsWith('conntrack')) {
      return Promise.resolve({ code: 0, signal: null, stdout: '', stderr: '', ...this.conntrackAnswer });
    }
    const args = argv.slice(1).join(' ');
    if (args === '-j -f -') {
      const error = this.#batch((JSON.parse(options.input ?? '') as { nftables: SentCommand[] }).nftables);
      return error === null ? result(0) : result(1, '', `internal:0:0-0: Error: ${error}\n\n`);
    }
    const listing = /^-j -t -a list table (\S+) (\S+)$/.exec(args);
    if (listing !== null) {
      const [family, table] = [listing[1] ?? '', listing[2] ?? ''];
      const chains = this.tables.get(`${family} ${table}`);
      if (chains === undefined)
        return result(1, '', `Error: No such file or directory\nlist table ${family} ${table}\n`);
      const items: unknown[] = [{ metainfo: { version: '1.0.6' } }, { table: { family, name: table, handle: 1 } }];
      for (const [chain, rules] of chains) {
        items.push({ chain: { family, table, name: chain, handle: 1 } });
        for (const rule of rules) items.push({ rule: { family, table, chain, ...rule } });
      }
      return result(0, JSON.stringify({ nftables: items }));
    }
    return result(1, '', 'Error: syntax error');
  };

  /** Applies the commands to a copy and keeps it only when every one worked. */
  #batch(commands: SentCommand[]): string | null {
    const copy = new Map(
      [...this.tables].map(([key, chains]) => [key, new Map([...chains].map(([c, r]) => [c, [...r]]))]),
    );
    for (const command of commands) {
      const [verb, body] = Object.entries(command)[0] ?? [];
      // Element writes are the driver's own business (nftables-driver.test.ts fakes the sets): taken as they come.
      if (body?.element !== undefined) continue;
      const rule = body?.rule;
      const chain = copy.get(`${String(rule?.family)} ${String(rule?.table)}`)?.get(String(rule?.chain));
      if (rule === undefined || chain === undefined) return 'Could not process rule: No such file or directory';
      if (verb === 'insert') {
        chain.unshift({
          handle: this.#nextHandle++,
          ...(typeof rule.comment === 'string' ? { comment: rule.comment } : {}),
          expr: rule.expr as unknown[],
        });
      } else if (verb === 'delete') {
        const index = chain.findIndex((listed) => listed.handle === rule.handle);
        if (index === -1) return 'Could not process rule: No such file or directory';
        chain.splice(index, 1);
      } else return `unexpected command ${String(verb)}`;
    }
    for (const [key, chains] of copy) this.tables.set(key, chains);
    return null;
  }
}
