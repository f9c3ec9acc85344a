import {
  MANAGED_CHAIN_PREFIX,
  MANAGED_RULE_MARKER,
  managedChainName,
  managedRuleComment,
  type ManagedRuleFamily,
  type ManagedRulePlan,
} from './managed-rule.js';

/**
 * The iptables side of a managed rule as data: what `iptables -S` says the filter table holds, what
 * one backend's rules should be, and the `iptables-restore --noflush` script that turns one into the
 * other. No process runs here (see iptables-rule-owner.ts).
 *
 * A backend's rules, for one family:
 *
 *     -A POSTERN-<id> -m set --match-set <set> src -m comment --comment "postern managed rule backend <id>" -j RETURN   (per set)
 *     -A POSTERN-<id> -m comment --comment "…" -j DROP
 *     -A <Chain> -p tcp -m multiport --dports <ports> -m comment --comment "…" -j POSTERN-<id>          (first in <Chain>)
 *
 * The tokens are spelled the way `iptables -S` prints them back, so an unchanged backend compares equal
 * and costs no write.
 */

/** One `-A` line of `iptables -S`. */
export interface ListedRule {
  chain: string;
  /** Position in its chain, from 1. */
  position: number;
  /** The arguments after `-A <chain>`, unquoted. */
  spec: string[];
}

/** The filter table as `iptables -S` lists it. */
export interface FilterTable {
  chains: Set<string>;
  rules: ListedRule[];
}

/** iptables' multiport match takes at most 15 ports; more ports take more jumps. */
const MULTIPORT_MAX_PORTS = 15;
/** The chains Postern makes: `POSTERN-` and 12 hex characters (managed-rule.ts). */
const OWN_CHAIN = new RegExp(`^${MANAGED_CHAIN_PREFIX}[0-9a-f]{12}$`);

/** Splits one line the way iptables-save quotes it: double quotes group, a backslash escapes. */
export function splitRuleLine(line: string): string[] {
  const tokens: string[] = [];
  let current: string | null = null;
  let quoted = false;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index] as string;
    if (char === '\\' && index + 1 < line.length) {
      current = (current ?? '') + (line[index + 1] as string);
      index += 1;
    } else if (char === '"') {
      quoted = !quoted;
      current ??= '';
    } else if (!quoted && /\s/.test(char)) {
      if (current !== null) tokens.push(current);
      current = null;
    } else {
      current = (current ?? '') + char;
    }
  }
  if (current !== null) tokens.push(current);
  return tokens;
}

/** Reads `iptables -S` (the whole filter table). */
export function parseFilterTable(output: string): FilterTable {
  const chains = new Set<string>();
  const rules: ListedRule[] = [];
  const positions = new Map<string, number>();
  for (const line of output.split('\n')) {
    const [verb, chain, ...spec] = splitRuleLine(line.trim());
    if (chain === undefined) continue;
    if (verb === '-P' || verb === '-N') chains.add(chain);
    if (verb !== '-A') continue;
    const position = (positions.get(chain) ?? 0) + 1;
    positions.set(chain, position);
    rules.push({ chain, position, spec });
  }
  return { chains, rules };
}

/** The value after `option` in a rule's spec, or undefined. */
function optionValue(spec: readonly string[], option: string): string | undefined {
  const index = spec.indexOf(option);
  return index === -1 ? undefined : spec[index + 1];
}

/** A rule Postern wrote: its comment starts with the marker. */
export function carriesMarker(rule: ListedRule): boolean {
  return optionValue(rule.spec, '--comment')?.startsWith(MANAGED_RULE_MARKER) === true;
}

/** The rules one backend should have in one family. */
export interface DesiredRules {
  chain: string;
  /** The rules inside the backend's chain, in order. */
  chainRules: string[][];
  /** The admin's chain and the jumps that go first in it, in order. */
  adminChain: string;
  jumps: string[][];
}

export function desiredRules(plan: ManagedRulePlan, family: ManagedRuleFamily): DesiredRules {
  const chain = managedChainName(plan.backendId);
  const comment = ['-m', 'comment', '--comment', managedRuleComment(plan.backendId)];
  const chainRules = [
    ...plan.sets[family].map((set) => ['-m', 'set', '--match-set', set, 'src', ...comment, '-j', 'RETURN']),
    [...comment, '-j', 'DROP'],
  ];
  const jumps: string[][] = [];
  for (let start = 0; start < plan.ports.length; start += MULTIPORT_MAX_PORTS) {
    const ports = plan.ports.slice(start, start + MULTIPORT_MAX_PORTS).join(',');
    jumps.push(['-p', 'tcp', '-m', 'multiport', '--dports', ports, ...comment, '-j', chain]);
  }
  return { chain, chainRules, adminChain: plan.chain, jumps };
}

/** What the table holds now for one of Postern's chains. */
interface CurrentRules {
  exists: boolean;
  chainRules: ListedRule[];
  /** Postern's jumps to the chain, wherever they are. */
  jumps: ListedRule[];
}

function currentRules(table: FilterTable, chain: string): CurrentRules {
  return {
    exists: table.chains.has(chain),
    chainRules: table.rules.filter((rule) => rule.chain === chain),
    jumps: table.rules.filter((rule) => optionValue(rule.spec, '-j') === chain && carriesMarker(rule)),
  };
}

const sameSpec = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((token, index) => token === b[index]);

/**
 * The restore script that makes one backend's rules what `desired` says, or null when they already
 * are. Nothing but the backend's own chain and Postern's jumps to it is named in the script.
 *
 * Why one `iptables-restore --noflush` and not a sequence of iptables calls: the script is committed
 * at once (one table replacement with iptables-legacy, one transaction with iptables-nft), so no
 * packet ever sees a half-built chain: not an empty chain (non-members let through to the chain's
 * established accept), not a chain without the new set. Declaring `:POSTERN-<id>` creates the chain
 * or, with --noflush, empties just that chain; every other chain is left as it is.
 */
export function convergeScript(table: FilterTable, desired: DesiredRules): string | null {
  const current = currentRules(table, desired.chain);
  const chainRight =
    current.exists &&
    current.chainRules.length === desired.chainRules.length &&
    current.chainRules.every((rule, index) => sameSpec(rule.spec, desired.chainRules[index] ?? []));
  // The jumps are right only as the first rules of the admin's chain, in order, and nowhere else:
  // before the chain's accept of established connections is the whole point.
  const jumpsRight =
    current.jumps.length === desired.jumps.length &&
    current.jumps.every(
      (rule, index) =>
        rule.chain === desired.adminChain &&
        rule.position === index + 1 &&
        sameSpec(rule.spec, desired.jumps[index] ?? []),
    );
  if (chainRight && jumpsRight) return null;
  const lines: string[] = [];
  if (!chainRight) {
    lines.push(`:${desired.chain} - [0:0]`);
    for (const rule of desired.chainRules) lines.push(ruleLine('-A', desired.chain, rule));
  }
  if (!jumpsRight) {
    for (const jump of current.jumps) lines.push(ruleLine('-D', jump.chain, jump.spec));
    // Inserted at 1 from the last to the first, so they end up first and in order.
    for (const jump of [...desired.jumps].reverse()) lines.push(ruleLine('-I', desired.adminChain, jump, 1));
  }
  return restoreScript(lines);
}

/**
 * Postern's chains in the table that no plan wants (a backend whose ManagedRule was turned off, whose
 * knocs are gone, or that lost its last set of this family), except those named in `spare`. A chain
 * holding any rule without the marker is not Postern's alone and is left as it is.
 */
export function unwantedChains(table: FilterTable, wanted: ReadonlySet<string>): string[] {
  return [...table.chains].filter(
    (chain) =>
      OWN_CHAIN.test(chain) &&
      !wanted.has(chain) &&
      table.rules.filter((rule) => rule.chain === chain).every((rule) => carriesMarker(rule)),
  );
}

/** The script that removes one of Postern's chains with Postern's jumps to it. */
export function removalScript(table: FilterTable, chain: string): string {
  const current = currentRules(table, chain);
  return restoreScript([
    ...current.jumps.map((jump) => ruleLine('-D', jump.chain, jump.spec)),
    `-F ${chain}`,
    `-X ${chain}`,
  ]);
}

function restoreScript(lines: readonly string[]): string {
  return ['*filter', ...lines, 'COMMIT', ''].join('\n');
}

/**
 * One line of a restore script. Every token comes from a validated name, a number or Postern's own
 * comment; a token that would need more than plain double quotes (a quote, a backslash, a line end)
 * could only come from a rule someone else shaped, and is refused rather than written.
 */
function ruleLine(verb: '-A' | '-D' | '-I', chain: string, spec: readonly string[], position?: number): string {
  const tokens = [verb, chain, ...(position === undefined ? [] : [String(position)]), ...spec];
  return tokens
    .map((token) => {
      if (/["\\\r\n]/.test(token)) throw new Error(`refusing to write the iptables argument ${JSON.stringify(token)}`);
      return /\s/.test(token) || token === '' ? `"${token}"` : token;
    })
    .join(' ');
}
