import type { Logger } from 'pino';
import { parseAddress, type ParsedAddress } from '../addresses.js';
import type { EntryOutcome } from '../driver.js';
import { mapWithConcurrency } from '../concurrency.js';
import { errorMessage } from '../outcomes.js';
import { defaultRunner, type CommandRunner } from './commands.js';

export interface ConntrackFlowsOptions {
  /** The argv that runs conntrack: `['/usr/sbin/conntrack']`, `['sudo', '-n', …]`, `['ip', 'netns', 'exec', …]`. */
  command: readonly string[];
  logger: Logger;
  run?: CommandRunner;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Addresses whose flows are ended at once (a flush of a big knoc must not start hundreds of processes together). */
const PARALLEL_ADDRESSES = 4;
/** What conntrack says, with exit status 1, when no entry matched: nothing to end, so a success. */
const NOTHING_MATCHED = /\b0 flow entries have been deleted/;

/**
 * Ends an address's tracked TCP connections to the managed rule's ports (`conntrack -D`), at a
 * revoke. Both this and the managed rule's drop are needed:
 *
 * - Deleting the conntrack entry makes the flow's next packet NEW, so it goes through the firewall's
 *   rules as a new connection would, and the admin's own set match refuses it now that the address
 *   has left the set, wherever the admin's accept of established connections sits.
 * - The drop in Postern's chain ahead of that accept is what ends a flow at expiry, when the kernel
 *   takes the address out of the set on its own and no Postern process is there to run conntrack.
 *
 * A failure is logged, never thrown: the set is already right, and the drop stops the flow at its
 * next packet anyway.
 */
export class ConntrackFlows {
  readonly #options: ConntrackFlowsOptions;
  readonly #run: CommandRunner;

  constructor(options: ConntrackFlowsOptions) {
    this.#options = options;
    this.#run = options.run ?? defaultRunner;
  }

  /** Ends the flows of the addresses a removal took off the device (its ok outcomes). */
  async endRemoved(outcomes: readonly EntryOutcome[], ports: readonly number[]): Promise<void> {
    const removed = outcomes.flatMap((outcome) => {
      const parsed = outcome.ok ? parseAddress(outcome.ip) : null;
      return parsed === null ? [] : [parsed];
    });
    await this.end(removed, ports);
  }

  async end(addresses: readonly ParsedAddress[], ports: readonly number[]): Promise<void> {
    await mapWithConcurrency(addresses, PARALLEL_ADDRESSES, async (address) => {
      for (const port of ports) await this.#endOne(address, port);
    });
  }

  async #endOne(address: ParsedAddress, port: number): Promise<void> {
    const argv = [
      ...this.#options.command,
      '-D',
      '-p',
      'tcp',
      '-s',
      address.address,
      ...(address.isHost ? [] : ['--mask-src', netmask(address)]),
      '--dport',
      String(port),
    ];
    try {
      const result = await this.#run(argv, { timeoutMs: this.#options.timeoutMs ?? DEFAULT_TIMEOUT_MS });
      if (result.code === 0 || (result.code === 1 && NOTHING_MATCHED.test(result.stderr))) return;
      this.#options.logger.warn(
        { address: address.canonical, port, code: result.code, error: result.stderr.trim().slice(0, 500) },
        'conntrack could not end the connections of a revoked address',
      );
    } catch (error) {
      this.#options.logger.warn(
        { address: address.canonical, port, error: errorMessage(error) },
        'conntrack could not be run to end the connections of a revoked address',
      );
    }
  }
}

/** The network's mask as conntrack's --mask-src takes it (`255.255.255.0`, `ffff:ffff::`). */
export function netmask(address: ParsedAddress): string {
  // Byte n of a mask of `prefix` ones: its bits that fall before the prefix end are set.
  const byte = (n: number) => (0xff00 >> Math.max(0, Math.min(8, address.prefix - n * 8))) & 0xff;
  if (address.family === 'inet') return [0, 1, 2, 3].map(byte).join('.');
  const groups = [0, 1, 2, 3, 4, 5, 6, 7].map((n) => ((byte(2 * n) << 8) | byte(2 * n + 1)).toString(16));
  // The ones come first, so everything from the first zero group on is zero: `ffff:ffff::`.
  const firstZero = groups.indexOf('0');
  return firstZero === -1 ? groups.join(':') : `${groups.slice(0, firstZero).join(':')}::`;
}
