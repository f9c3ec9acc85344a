import { BlockList, isIPv4 } from 'node:net';
import { canonicalAddress, parseAddress } from '../addresses.js';

/**
 * The client addresses one knoc admits now: single hosts and networks, as the grants name them.
 * Lookups run on every request, so the set keeps a BlockList (rebuilt on change) for the networks.
 */
export class GrantedAddresses {
  readonly #entries = new Set<string>();
  #networks: BlockList | null = null;

  /** Adds an address or CIDR; false when it is not one. */
  add(ip: string): boolean {
    const parsed = parseAddress(ip);
    if (parsed === null) return false;
    this.#entries.add(parsed.canonical);
    if (!parsed.isHost) this.#networks = null;
    return true;
  }

  /** Removes an address or CIDR (absent is fine); false when it is not one. */
  delete(ip: string): boolean {
    const parsed = parseAddress(ip);
    if (parsed === null) return false;
    if (this.#entries.delete(parsed.canonical) && !parsed.isHost) this.#networks = null;
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#networks = null;
  }

  /** Every granted address, canonical. */
  list(): string[] {
    return [...this.#entries];
  }

  /** Whether a client at `address` is admitted. */
  admits(address: string): boolean {
    const parsed = parseAddress(address);
    if (parsed === null || !parsed.isHost) return false;
    if (this.#entries.has(parsed.canonical)) return true;
    return this.#networkList().check(parsed.address, parsed.family === 'inet' ? 'ipv4' : 'ipv6');
  }

  #networkList(): BlockList {
    if (this.#networks !== null) return this.#networks;
    const list = new BlockList();
    for (const entry of this.#entries) {
      const parsed = parseAddress(entry);
      if (parsed === null || parsed.isHost) continue;
      list.addSubnet(parsed.address, parsed.prefix, isIPv4(parsed.address) ? 'ipv4' : 'ipv6');
    }
    this.#networks = list;
    return list;
  }
}

/** A socket's remote address as the grants spell it (`::ffff:127.0.0.2` is the IPv4 client 127.0.0.2). */
export function clientAddress(remote: string | undefined): string | null {
  if (remote === undefined || remote === '') return null;
  return canonicalAddress(remote);
}
