import type { Logger } from 'pino';
import { errorMessage } from '../outcomes.js';
import { defaultRunner, type CommandRunner, type ManagedRuleCommands } from './commands.js';
import {
  convergeScript,
  desiredRules,
  parseFilterTable,
  removalScript,
  unwantedChains,
  type FilterTable,
} from './iptables-rules.js';
import {
  MANAGED_RULE_FAMILIES,
  managedChainName,
  type ManagedRuleFamily,
  type ManagedRulePlan,
} from './managed-rule.js';

export interface IptablesRuleOwnerOptions {
  commands: Pick<ManagedRuleCommands, 'iptables' | 'iptablesRestore' | 'ip6tables' | 'ip6tablesRestore'>;
  logger: Logger;
  run?: CommandRunner;
  timeoutMs?: number;
  /**
   * Read the tables at the first call even with nothing to write, for rules an earlier run left
   * (default true). Off for an agent on sudo: its sudoers rule may name ipset alone, and a refused
   * `sudo iptables` on every start would be logged as a security event for nothing.
   */
  lookForLeftovers?: boolean;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const FAMILY_NAME: Record<ManagedRuleFamily, string> = { inet: 'IPv4', inet6: 'IPv6' };

/**
 * Keeps the filter table's managed rules (iptables for IPv4, ip6tables for IPv6) as the plans say.
 * Per family and call: one `iptables -S` to read the table, then one `iptables-restore --noflush`
 * per backend whose rules differ (none when nothing changed), and one per chain no plan wants any
 * more. Each backend's script is its own, so one that fails (a set that does not exist, a chain the
 * admin has not made) leaves the others converged.
 */
export class IptablesRuleOwner {
  readonly #options: IptablesRuleOwnerOptions;
  readonly #run: CommandRunner;
  readonly #timeoutMs: number;
  /**
   * Families whose table may hold Postern's rules: read at least once (leftovers of an earlier run),
   * then only while a plan wants rules there or a call just removed some, so an agent without any
   * managed rule does not list its firewall on every state message.
   */
  readonly #mayHoldRules: Set<ManagedRuleFamily>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: IptablesRuleOwnerOptions) {
    this.#options = options;
    this.#run = options.run ?? defaultRunner;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#mayHoldRules = new Set(options.lookForLeftovers === false ? [] : MANAGED_RULE_FAMILIES);
  }

  /**
   * Converges every family to the plans; returns why a backend's rules could not be written, by
   * backend id. Backends in `spare` (their ManagedRule could not be read) keep whatever they have.
   * Calls run one at a time.
   */
  converge(plans: readonly ManagedRulePlan[], spare: ReadonlySet<string> = new Set()): Promise<Map<string, string>> {
    const result = this.#queue.then(() => this.#convergeNow(plans, spare));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  async #convergeNow(plans: readonly ManagedRulePlan[], spare: ReadonlySet<string>): Promise<Map<string, string>> {
    const failures = new Map<string, string>();
    for (const family of MANAGED_RULE_FAMILIES) {
      const wanted = plans.filter((plan) => plan.sets[family].length > 0);
      if (wanted.length === 0 && !this.#mayHoldRules.has(family)) continue;
      const fail = (backendId: string, error: string) =>
        failures.set(
          backendId,
          [failures.get(backendId), `${FAMILY_NAME[family]}: ${error}`].filter(Boolean).join('; '),
        );
      let table: FilterTable;
      try {
        table = await this.#readTable(family);
      } catch (error) {
        // Nothing to write and nothing readable (no ip6tables, a host without iptables): nothing to do.
        if (wanted.length === 0) {
          this.#options.logger.debug({ family, error: errorMessage(error) }, 'no managed rules to check');
          this.#mayHoldRules.delete(family);
        }
        for (const plan of wanted) fail(plan.backendId, errorMessage(error));
        continue;
      }
      for (const plan of wanted) {
        const script = convergeScript(table, desiredRules(plan, family));
        if (script === null) continue;
        try {
          await this.#restore(family, script);
          this.#options.logger.info(
            { backendId: plan.backendId, family, chain: plan.chain, ports: plan.ports },
            'managed rule written',
          );
        } catch (error) {
          fail(plan.backendId, errorMessage(error));
        }
      }
      const keep = new Set([...wanted.map((plan) => plan.backendId), ...spare].map(managedChainName));
      let removedAll = true;
      for (const chain of unwantedChains(table, keep)) {
        try {
          await this.#restore(family, removalScript(table, chain));
          this.#options.logger.info({ family, chain }, 'managed rule removed');
        } catch (error) {
          removedAll = false;
          this.#options.logger.warn({ family, chain, error: errorMessage(error) }, 'cannot remove a managed rule');
        }
      }
      if (wanted.length === 0 && spare.size === 0 && removedAll) this.#mayHoldRules.delete(family);
      else this.#mayHoldRules.add(family);
    }
    return failures;
  }

  async #readTable(family: ManagedRuleFamily): Promise<FilterTable> {
    const argv = [...this.#command(family, 'list'), '-w', '-t', 'filter', '-S'];
    const result = await this.#exec(argv);
    if (result.code !== 0) throw new Error(`${argv.join(' ')}: ${describeFailure(result)}`);
    return parseFilterTable(result.stdout);
  }

  async #restore(family: ManagedRuleFamily, script: string): Promise<void> {
    const argv = [...this.#command(family, 'restore'), '-w', '--noflush'];
    const result = await this.#exec(argv, script);
    if (result.code !== 0) throw new Error(`iptables-restore: ${describeFailure(result)}`);
  }

  #command(family: ManagedRuleFamily, use: 'list' | 'restore'): readonly string[] {
    const { commands } = this.#options;
    if (family === 'inet') return use === 'list' ? commands.iptables : commands.iptablesRestore;
    return use === 'list' ? commands.ip6tables : commands.ip6tablesRestore;
  }

  async #exec(argv: readonly string[], input?: string) {
    try {
      return await this.#run(argv, { timeoutMs: this.#timeoutMs, ...(input === undefined ? {} : { input }) });
    } catch (error) {
      throw new Error(`cannot run ${argv[0] ?? 'iptables'}: ${errorMessage(error)}`, { cause: error });
    }
  }
}

function describeFailure(result: { code: number | null; stderr: string }): string {
  if (result.code === null) return 'did not finish in time and was stopped';
  const said = result.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('Try `'))
    .join(' ');
  return said === '' ? `exit status ${result.code}` : said;
}
