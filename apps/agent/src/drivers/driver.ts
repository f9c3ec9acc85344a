import type { AgentKnoc, AgentKnocOf, BackendType } from '@postern/protocol';

/** The knocs a driver of type T receives: typed configs for one type, the whole union for any type. */
export type DriverKnoc<T extends BackendType> = BackendType extends T ? AgentKnoc : AgentKnocOf<T>;

/** One address to hold on a knoc. */
export interface DriverEntry {
  /** An IPv4 or IPv6 address (or CIDR). */
  ip: string;
  /** Seconds left; drivers with a device timeout (ipset) write it, clamped to 1…2147483. */
  ttlSeconds: number;
  /** Who the entry is for (scripts get it as knoc_username). */
  userName: string;
}

/** What happened to one entry. `error` is what the device said, for the grant's Error. */
export interface EntryOutcome {
  ip: string;
  ok: boolean;
  error: string;
  /**
   * A failure that trying again cannot fix (the device refused the credential or the request as
   * invalid, the knoc's configuration cannot work): the runtime does not retry it. Absent: the
   * failure may pass (a timeout, a 5xx, a dropped connection) and the runtime retries the apply with
   * back-off. Build it with `failed(ip, error, { permanent })` or `failureFrom(ip, error)` (outcomes.ts).
   */
  permanent?: true;
}

/**
 * A backend driver. Drivers receive argument arrays, never shell strings, and batch where the device
 * allows (one `ipset restore`, one runtime-socket connection). A driver never throws for one bad
 * entry: it reports it in the outcomes. It throws only when it cannot work at all (e.g. the socket
 * is gone), and then every entry of the call counts as failed with that message: permanent when the
 * thrown value is a `PermanentDriverError` (outcomes.ts), else retried.
 */
export interface Driver<T extends BackendType = BackendType> {
  readonly type: T;
  /** Adds the entries, or refreshes their device timeout when already present. */
  apply(knoc: DriverKnoc<T>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]>;
  /** Removes the entries; removing an absent entry is a success. */
  remove(knoc: DriverKnoc<T>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]>;
  /** The addresses the device holds for this knoc now, for reconciling after a restart. */
  list(knoc: DriverKnoc<T>): Promise<string[]>;
  /**
   * Optional, for devices that keep their own timeout per entry (ipset): the seconds each address
   * the device holds for this knoc has left, by canonical address (addresses without a timeout are
   * absent). The runtime never lets a message raise a timeout the device already has (see
   * runtime/deadline-rule.ts).
   */
  remainingSeconds?(knoc: DriverKnoc<T>): Promise<ReadonlyMap<string, number>>;
  /**
   * Optional (default true). Whether `list` reads this knoc's entries back from its device. False
   * where nothing can be read (a script; a PAN-OS list the firewall fetches from the server): drift
   * repair must then not take the empty listing as lost grants and apply them again.
   */
  readsBack?(knoc: DriverKnoc<T>): boolean;
  /**
   * Optional, for devices whose own rules may already let an address through for this knoc (an AWS
   * security group rule an admin made for the same address and port): those addresses, canonical.
   * `list` names only Postern's entries; drift repair counts a held entry that the device lets
   * through this way as held (it is not re-added on every check), and never takes one off.
   */
  coveredByOthers?(knoc: DriverKnoc<T>): Promise<string[]>;
  /** Removes every address the device holds for this knoc (knoc deleted). */
  flush(knoc: DriverKnoc<T>): Promise<void>;
  /** Releases sockets, servers and timers. */
  close(): Promise<void>;
  /**
   * Optional. The knocs of this driver's type the agent enforces now (call it with every state
   * message). Drivers that run something per knoc start it here and stop what is no longer listed:
   * knocproxy opens its listeners, so a visitor without a grant sees the 403 page rather than a
   * refused connection. Rejects naming the knocs it could not set up; the others are set up anyway.
   */
  configure?(knocs: readonly DriverKnoc<T>[]): Promise<void>;
}

/** The drivers an agent has, by backend type; a type without a driver is not in the map. */
export type DriverSet = ReadonlyMap<BackendType, Driver>;
