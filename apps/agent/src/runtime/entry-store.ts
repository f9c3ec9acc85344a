import type { AgentKnoc } from '@postern/protocol';
import type { Clock } from './clock.js';
import { ExpiryQueue } from './expiry-queue.js';
import { STATE_FORMAT_VERSION, type StateFileContent, type StoredEntry } from './state-file.js';

/** An address the agent put on a device (or is still trying to take off it). */
export interface HeldEntry {
  readonly aclId: string;
  readonly ip: string;
  userName: string;
  /** The knoc configuration the entry was applied with; removal uses the same one, even after the knoc changed. */
  readonly knoc: AgentKnoc;
  /** Monotonic deadline: the entry's expiry, or for a failed removal the next attempt. */
  deadlineMs: number;
  /**
   * When the server says the entry ends, in the server's time (epoch ms; undefined when an older
   * server or state file did not say). Only growth of this raises the deadline (see deadline-rule.ts).
   */
  endsAt: number | undefined;
  /** A raise of this entry's deadline was refused and logged already (logged once per entry). */
  raiseRefused: boolean;
  /** The generation at which the server last changed this entry (or 0 when unknown). */
  generation: number;
  /**
   * Removal was asked for (by the server, by expiry, or by the state file) and has not succeeded: it
   * is under way, or it failed and the deadline retries it. Set before the driver is called, and
   * written ahead first (removal journal), so that a restart never puts the entry back.
   */
  removing: boolean;
  /** Failed removal attempts so far, for the retry back-off. */
  removeAttempts: number;
}

/** A removed entry's last generation, kept so that an older message cannot re-add it. */
export interface Tombstone {
  aclId: string;
  ip: string;
  generation: number;
}

/**
 * Removal tombstones are dropped by every newer `state` (it is the whole truth up to its
 * generation). Over one long-lived connection they would pile up, so only this many are kept, the
 * oldest dropped first; a message that stale does not happen over an ordered stream.
 */
const MAX_TOMBSTONES = 50_000;

/** The key of an entry in the maps below: knoc and address. */
export function entryKey(aclId: string, ip: string): string {
  return `${aclId}\u0000${ip}`;
}

/**
 * Everything the agent holds: the knocs of the last desired state, the entries it applied with
 * their deadlines (one {@link ExpiryQueue} for all), removal tombstones, and the generations. It
 * decides nothing; the reconciler does. `onChange` runs after every change so the state file
 * follows.
 */
export class EntryStore {
  /** The knocs of the newest desired state, by aclId. */
  knocs = new Map<string, AgentKnoc>();
  readonly entries = new Map<string, HeldEntry>();
  readonly tombstones = new Map<string, Tombstone>();
  /** The highest generation applied (state or apply); sent in hello. */
  generation = 0;
  /** The generation of the newest `state` applied; older states and applies not newer are ignored. */
  stateGeneration = 0;
  readonly #expiry: ExpiryQueue;
  readonly #onChange: () => void;

  constructor(clock: Clock, onDue: () => void, onChange: () => void) {
    this.#expiry = new ExpiryQueue(clock, onDue);
    this.#onChange = onChange;
  }

  /**
   * The generation at which the server last changed this key (held entry or tombstone), or
   * undefined when the agent knows nothing of it.
   */
  lastChange(aclId: string, ip: string): number | undefined {
    const key = entryKey(aclId, ip);
    return this.entries.get(key)?.generation ?? this.tombstones.get(key)?.generation;
  }

  /** Holds an entry as applied, replacing whatever the key had, with its expiry deadline. */
  hold(
    entry: Omit<HeldEntry, 'removing' | 'removeAttempts' | 'endsAt' | 'raiseRefused'> &
      Partial<Pick<HeldEntry, 'endsAt' | 'raiseRefused'>>,
  ): void {
    const key = entryKey(entry.aclId, entry.ip);
    this.tombstones.delete(key);
    this.entries.set(key, {
      aclId: entry.aclId,
      ip: entry.ip,
      userName: entry.userName,
      knoc: entry.knoc,
      deadlineMs: entry.deadlineMs,
      endsAt: entry.endsAt,
      raiseRefused: entry.raiseRefused ?? false,
      generation: entry.generation,
      removing: false,
      removeAttempts: 0,
    });
    this.#expiry.schedule(key, entry.deadlineMs);
    this.#onChange();
  }

  /**
   * Marks an entry as being removed, before its driver is called: the removal is written ahead next
   * (removal journal, then the state file), so a restart removes the entry instead of putting it back. An address the agent did
   * not hold (a device may still have it) is held from now on as `removing`, under `knoc`. Its timer
   * stops: the removal's outcome ({@link removed} or {@link removalFailed}) decides what follows.
   */
  beginRemoval(removal: {
    aclId: string;
    ip: string;
    userName: string;
    knoc: AgentKnoc;
    generation: number;
  }): HeldEntry {
    const key = entryKey(removal.aclId, removal.ip);
    const held = this.entries.get(key);
    const entry: HeldEntry =
      held !== undefined && held.knoc === removal.knoc
        ? held
        : {
            aclId: removal.aclId,
            ip: removal.ip,
            userName: removal.userName,
            knoc: removal.knoc,
            deadlineMs: 0,
            endsAt: undefined,
            raiseRefused: false,
            generation: removal.generation,
            removing: true,
            removeAttempts: 0,
          };
    entry.removing = true;
    entry.generation = removal.generation;
    this.entries.set(key, entry);
    this.#expiry.cancel(key);
    this.#onChange();
    return entry;
  }

  /** Marks a held entry's removal as failed; it is retried at `retryAtMs`. */
  removalFailed(entry: HeldEntry, generation: number, retryAtMs: number): void {
    entry.removing = true;
    entry.removeAttempts++;
    entry.generation = generation;
    entry.deadlineMs = retryAtMs;
    const key = entryKey(entry.aclId, entry.ip);
    this.entries.set(key, entry);
    this.#expiry.schedule(key, retryAtMs);
    this.#onChange();
  }

  /** Forgets a removed entry (if held) and leaves a tombstone at `generation`. */
  removed(aclId: string, ip: string, generation: number): void {
    const key = entryKey(aclId, ip);
    this.entries.delete(key);
    this.#expiry.cancel(key);
    this.tombstones.delete(key);
    this.tombstones.set(key, { aclId, ip, generation });
    if (this.tombstones.size > MAX_TOMBSTONES) {
      const oldest = this.tombstones.keys().next();
      if (oldest.done !== true) this.tombstones.delete(oldest.value);
    }
    this.#onChange();
  }

  /** Records that the server touched a held entry at `generation` without changing it on the device. */
  touched(entry: HeldEntry, generation: number): void {
    entry.generation = generation;
    this.#onChange();
  }

  /** Drops tombstones a `state` at `generation` supersedes. */
  dropTombstonesUpTo(generation: number): void {
    for (const [key, tombstone] of this.tombstones) {
      if (tombstone.generation <= generation) this.tombstones.delete(key);
    }
    this.#onChange();
  }

  /** Records the generation of an applied message. */
  advance(generation: number, isState: boolean): void {
    this.generation = Math.max(this.generation, generation);
    if (isState) this.stateGeneration = Math.max(this.stateGeneration, generation);
    this.#onChange();
  }

  /** The held entries whose deadline has passed, leaving the expiry queue. */
  takeDue(nowMs: number): HeldEntry[] {
    const due: HeldEntry[] = [];
    for (const key of this.#expiry.takeDue(nowMs)) {
      const entry = this.entries.get(key);
      if (entry !== undefined) due.push(entry);
    }
    return due;
  }

  /** Stops the expiry timer (shutdown); entries stay on the devices and in the state file. */
  stopTimers(): void {
    this.#expiry.stop();
  }
}

/**
 * What the state file records for `store` now: monotonic deadlines become wall-clock instants, and
 * each knoc configuration an entry refers to is written once.
 */
export function stateFileContentOf(store: EntryStore, clock: Clock): StateFileContent {
  const nowMs = clock.monotonicMs();
  const nowWall = clock.wallMs();
  const knocIndex = new Map<AgentKnoc, number>();
  const knocs: AgentKnoc[] = [];
  const entries: StoredEntry[] = [];
  for (const entry of store.entries.values()) {
    let index = knocIndex.get(entry.knoc);
    if (index === undefined) {
      index = knocs.push(entry.knoc) - 1;
      knocIndex.set(entry.knoc, index);
    }
    entries.push({
      aclId: entry.aclId,
      ip: entry.ip,
      userName: entry.userName,
      expiresAt: Math.round(nowWall + (entry.deadlineMs - nowMs)),
      ...(entry.endsAt === undefined ? {} : { endsAt: entry.endsAt }),
      generation: entry.generation,
      knoc: index,
      removing: entry.removing,
    });
  }
  return {
    formatVersion: STATE_FORMAT_VERSION,
    generation: store.generation,
    stateGeneration: store.stateGeneration,
    knocs,
    entries,
    tombstones: [...store.tombstones.values()],
  };
}
