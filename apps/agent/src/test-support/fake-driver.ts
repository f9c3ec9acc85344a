import type { AgentKnoc, BackendType } from '@postern/protocol';
import type { Driver, DriverEntry, EntryOutcome } from '../drivers/driver.js';

/** One call a {@link FakeDriver} received. */
export interface FakeDriverCall {
  action: 'apply' | 'remove' | 'list' | 'flush';
  aclId: string;
  /** The knoc configuration the call was made with. */
  knoc: AgentKnoc;
  ips: string[];
  ttls: number[];
}

/** An entry on the fake device. */
export interface FakeDeviceEntry {
  ttlSeconds: number;
  userName: string;
}

/**
 * An in-memory device behind the real Driver interface, for the runtime's tests: it records every
 * call and holds entries per knoc. `fail` makes chosen entries fail, `unavailable` makes every call
 * throw (the device is unreachable).
 */
export class FakeDriver implements Driver {
  readonly type: BackendType;
  readonly calls: FakeDriverCall[] = [];
  /** Entries per aclId. */
  readonly device = new Map<string, Map<string, FakeDeviceEntry>>();
  /** An error text for an entry that should fail, or null. */
  fail: (action: 'apply' | 'remove', ip: string) => string | null = () => null;
  /** When set, every call throws this message. */
  unavailable: string | null = null;
  /**
   * Whether the device keeps a timeout per entry that `remainingSeconds` reports (as ipset does): the
   * ttl it was applied with, minus `elapsedSeconds`. Off by default: the device says nothing.
   */
  keepsTimeouts = false;
  /** Seconds the device's timeouts have run down since they were applied (when keepsTimeouts). */
  elapsedSeconds = 0;
  /**
   * Addresses the device accepts and then does not keep (something on it takes them off at once):
   * apply answers ok, list does not show them.
   */
  loses: (ip: string) => boolean = () => false;
  /** Whether list reads a knoc's entries back (drift repair skips knocs whose device cannot be read). */
  readsBack: (knoc: AgentKnoc) => boolean = () => true;
  /** Addresses per aclId that rules not Postern's let through (`coveredByOthers`), apart from `device`. */
  readonly othersRules = new Map<string, string[]>();
  closed = false;
  /** The knoc ids of every configure call, in order. */
  readonly configured: string[][] = [];

  constructor(type: BackendType = 'ipset') {
    this.type = type;
  }

  apply(knoc: AgentKnoc, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#run('apply', knoc, entries, (held, entry) => {
      if (this.loses(entry.ip)) return;
      held.set(entry.ip, { ttlSeconds: entry.ttlSeconds, userName: entry.userName });
    });
  }

  remove(knoc: AgentKnoc, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#run('remove', knoc, entries, (held, entry) => {
      held.delete(entry.ip);
    });
  }

  configure(knocs: readonly AgentKnoc[]): Promise<void> {
    this.configured.push(knocs.map((knoc) => knoc.aclId));
    return Promise.resolve();
  }

  list(knoc: AgentKnoc): Promise<string[]> {
    this.calls.push({ action: 'list', aclId: knoc.aclId, knoc, ips: [], ttls: [] });
    if (this.unavailable !== null) return Promise.reject(new Error(this.unavailable));
    return Promise.resolve([...(this.device.get(knoc.aclId)?.keys() ?? [])]);
  }

  coveredByOthers(knoc: AgentKnoc): Promise<string[]> {
    if (this.unavailable !== null) return Promise.reject(new Error(this.unavailable));
    return Promise.resolve([...(this.othersRules.get(knoc.aclId) ?? [])]);
  }

  remainingSeconds(knoc: AgentKnoc): Promise<ReadonlyMap<string, number>> {
    if (this.unavailable !== null) return Promise.reject(new Error(this.unavailable));
    const remaining = new Map<string, number>();
    if (!this.keepsTimeouts) return Promise.resolve(remaining);
    for (const [ip, entry] of this.device.get(knoc.aclId) ?? []) {
      if (entry.ttlSeconds - this.elapsedSeconds > 0) remaining.set(ip, entry.ttlSeconds - this.elapsedSeconds);
    }
    return Promise.resolve(remaining);
  }

  flush(knoc: AgentKnoc): Promise<void> {
    this.calls.push({ action: 'flush', aclId: knoc.aclId, knoc, ips: [], ttls: [] });
    this.device.delete(knoc.aclId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  /** The addresses the device holds for a knoc, sorted. */
  ips(aclId: string): string[] {
    return [...(this.device.get(aclId)?.keys() ?? [])].sort();
  }

  /** Calls of one action, in order. */
  callsOf(action: FakeDriverCall['action']): FakeDriverCall[] {
    return this.calls.filter((call) => call.action === action);
  }

  #run(
    action: 'apply' | 'remove',
    knoc: AgentKnoc,
    entries: readonly DriverEntry[],
    change: (held: Map<string, FakeDeviceEntry>, entry: DriverEntry) => void,
  ): Promise<EntryOutcome[]> {
    this.calls.push({
      action,
      aclId: knoc.aclId,
      knoc,
      ips: entries.map((entry) => entry.ip),
      ttls: entries.map((entry) => entry.ttlSeconds),
    });
    if (this.unavailable !== null) return Promise.reject(new Error(this.unavailable));
    const held = this.device.get(knoc.aclId) ?? new Map<string, FakeDeviceEntry>();
    this.device.set(knoc.aclId, held);
    return Promise.resolve(
      entries.map((entry) => {
        const error = this.fail(action, entry.ip);
        if (error !== null) return { ip: entry.ip, ok: false, error };
        change(held, entry);
        return { ip: entry.ip, ok: true, error: '' };
      }),
    );
  }
}
