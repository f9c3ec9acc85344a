import type { AgentKnocOf } from '@postern/protocol';
import pino from 'pino';
import type { CommandResult, RunOptions } from '../command.js';
import type { DriverEntry } from '../driver.js';
import type { NftShellAnswer, NftShellPort } from './nft-shell.js';
import { NftablesDriver } from './nftables-driver.js';

/**
 * A stand-in for nft and the kernel's sets, as nft 1.0.6 behaves (tests/system/drivers-nftables
 * checks the real one): a batch is all or nothing; `delete` of an absent element and any command on
 * an absent set fail it with "No such file or directory"; `add` of a present element keeps its old
 * timeout (as older kernels do); a timeout on a set without `flags timeout` is "Invalid argument".
 */
/** A document sent to `nft -j -f -`: commands such as `{"add": {"element": {…}}}`. */
export interface SentBatch {
  nftables: Record<string, { element?: Record<string, unknown>; set?: Record<string, unknown> }>[];
}

export class FakeNft {
  readonly calls: { argv: string[]; input: string | undefined }[] = [];
  readonly sets = new Map<string, { type: string; flags: string[]; elements: Map<string, number | null> }>();
  /** Makes every run fail with this stderr (a missing permission). */
  failEverythingWith: string | null = null;
  /** The lines of each call to the shell, in order. */
  readonly shellRuns: string[][] = [];
  /** Makes the shell itself fail (it died, did not answer) with this. */
  shellFailure: string | null = null;
  shellClosed = false;
  /** Runs after each batch the shell took (another process changing the set at once). */
  afterShellBatch: () => void = () => undefined;

  /**
   * The same kernel seen through the long-lived `nft -j -i`: each line a batch document (answered
   * with its error) or a JSON `list set` (answered with the listing, or its error and no line).
   */
  readonly shell: NftShellPort = {
    run: (commands) => {
      this.shellRuns.push(commands.map((command) => command.line));
      if (this.shellFailure !== null) return Promise.reject(new Error(this.shellFailure));
      return Promise.resolve(commands.map((command) => this.#answer(command.line)));
    },
    close: () => {
      this.shellClosed = true;
      return Promise.resolve();
    },
  };

  /** The calls that spawned nft (not the shell's). */
  spawned(): string[] {
    return this.calls.map((call) => call.argv.slice(1).join(' '));
  }

  addSet(name: string, type: string, flags = ['timeout'], table = 'inet postern'): void {
    this.sets.set(`${table} ${name}`, { type, flags, elements: new Map() });
  }

  elements(name: string, table = 'inet postern'): Map<string, number | null> {
    return this.sets.get(`${table} ${name}`)?.elements ?? new Map<string, number | null>();
  }

  /** The documents sent to `nft -j -f -`, parsed. */
  batches(): SentBatch[] {
    return this.calls
      .filter((call) => call.input !== undefined)
      .map((call) => JSON.parse(call.input ?? '') as SentBatch);
  }

  readonly run = (argv: readonly string[], options: RunOptions): Promise<CommandResult> => {
    this.calls.push({ argv: [...argv], input: options.input });
    const result = (code: number, stdout: string, stderr = '') =>
      Promise.resolve({ code, signal: null, stdout, stderr });
    if (this.failEverythingWith !== null) return result(1, '', this.failEverythingWith);
    const args = argv.slice(1);
    if (args.join(' ') === '-j -f -') {
      const error = this.#batch(JSON.parse(options.input ?? '') as SentBatch);
      return error === null ? result(0, '') : result(1, '', `internal:0:0-0: Error: ${error}\n\n`);
    }
    if (args.slice(0, 3).join(' ') === '-j list set') {
      const key = args.slice(3).join(' ');
      const set = this.sets.get(key);
      if (set === undefined) return result(1, '', `Error: No such file or directory\nlist set ${key}\n   ^^^\n`);
      return result(0, JSON.stringify({ nftables: [{ metainfo: {} }, { set: this.#listed(key, set) }] }));
    }
    return result(1, '', 'Error: syntax error');
  };

  #answer(line: string): NftShellAnswer {
    if (this.failEverythingWith !== null) return { stderr: this.failEverythingWith, stdout: null };
    const document = JSON.parse(line) as SentBatch & { nftables: { list?: { set?: Record<string, unknown> } }[] };
    const listing = document.nftables[0]?.list?.set;
    if (listing !== undefined) {
      const key = `${String(listing.family)} ${String(listing.table)} ${String(listing.name)}`;
      const set = this.sets.get(key);
      if (set === undefined) return { stderr: 'internal:0:0-0: Error: No such file or directory', stdout: null };
      return { stderr: '', stdout: JSON.stringify({ nftables: [{ metainfo: {} }, { set: this.#listed(key, set) }] }) };
    }
    const error = this.#batch(document);
    if (error === null) this.afterShellBatch();
    return { stderr: error === null ? '' : `internal:0:0-0: Error: ${error}`, stdout: null };
  }

  #listed(key: string, set: { type: string; flags: string[]; elements: Map<string, number | null> }) {
    const [family, table, name] = key.split(' ');
    const elem = [...set.elements].map(([address, timeout]) => {
      const val = address.includes('/')
        ? { prefix: { addr: address.split('/')[0], len: Number(address.split('/')[1]) } }
        : address;
      return timeout === null ? val : { elem: { val, timeout, expires: timeout - 1 } };
    });
    return { family, table, name, type: set.type, handle: 1, flags: set.flags, ...(elem.length ? { elem } : {}) };
  }

  /** Applies a batch to a copy of the sets and keeps the copy only when every command worked. */
  #batch(document: SentBatch): string | null {
    const copy = new Map([...this.sets].map(([key, set]) => [key, { ...set, elements: new Map(set.elements) }]));
    for (const command of document.nftables) {
      const [verb, body] = Object.entries(command)[0] ?? [];
      const target = body?.element ?? body?.set;
      const set = copy.get(`${String(target?.family)} ${String(target?.table)} ${String(target?.name)}`);
      if (set === undefined) return 'No such file or directory';
      if (verb === 'flush') {
        set.elements.clear();
        continue;
      }
      for (const { elem } of target?.elem as { elem: { val: unknown; timeout?: number } }[]) {
        const val = elem.val as string | { prefix: { addr: string; len: number } };
        const address = typeof val === 'string' ? val : `${val.prefix.addr}/${val.prefix.len}`;
        if (typeof val !== 'string' && !set.flags.includes('interval')) {
          return "You must add 'flags interval' to your set declaration if you want to add prefix elements";
        }
        if (verb === 'delete') {
          if (!set.elements.delete(address)) return 'Could not process rule: No such file or directory';
        } else if (elem.timeout !== undefined && !set.flags.includes('timeout')) {
          return 'Could not process rule: Invalid argument';
        } else if (!set.elements.has(address)) {
          // timeout 0 or none: the element never expires.
          set.elements.set(address, elem.timeout === undefined || elem.timeout === 0 ? null : elem.timeout);
        }
      }
    }
    for (const [key, set] of copy) this.sets.set(key, set);
    return null;
  }
}

export const ALLOWED = ['inet/postern/allow4', 'inet/postern/allow6', 'inet/postern/plain4', 'inet/postern/absent'];

export function knoc(acl: { V4SetName?: string; V6SetName?: string }, backend: Record<string, unknown> = {}) {
  return {
    aclId: 'acl-nft',
    name: 'Office SSH',
    url: '',
    backendId: 'backend-nft',
    backendType: 'nftables',
    backend: { Table: 'postern', ...backend },
    acl,
  } as AgentKnocOf<'nftables'>;
}

export const BOTH = knoc({ V4SetName: 'allow4', V6SetName: 'allow6' });
export const entry = (ip: string, ttlSeconds = 300): DriverEntry => ({ ip, ttlSeconds, userName: 'alice' });

/**
 * The sets each test starts with: allow4 and allow6 (timeouts), plain4 (no timeouts), not_allowed
 * (outside the agent's allowed sets), and a driver on them that spawns nft for everything.
 */
export function givenNft(): { nft: FakeNft; driver: NftablesDriver } {
  const nft = new FakeNft();
  nft.addSet('allow4', 'ipv4_addr');
  nft.addSet('allow6', 'ipv6_addr');
  nft.addSet('plain4', 'ipv4_addr', []);
  nft.addSet('not_allowed', 'ipv4_addr');
  const driver = new NftablesDriver({
    allowedSets: ALLOWED,
    command: ['/usr/sbin/nft'],
    logger: pino({ level: 'silent' }),
    run: nft.run,
  });
  return { nft, driver };
}
