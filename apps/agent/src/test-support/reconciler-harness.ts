import {
  AGENT_PROTOCOL_VERSION,
  type AgentKnoc,
  type BackendType,
  type DesiredEntry,
  type EntryKey,
  type EntryResult,
} from '@postern/protocol';
import type { Driver } from '../drivers/driver.js';
import { EntryStore } from '../runtime/entry-store.js';
import type { EntryChangesOptions } from '../runtime/entry-changes.js';
import { Reconciler } from '../runtime/reconciler.js';
import { SerialQueue } from '../runtime/serial-queue.js';
import type { StateFileContent } from '../runtime/state-file.js';
import { FakeDriver } from './fake-driver.js';
import { ManualClock } from './manual-clock.js';
import { capturedLogger } from './runtime-fixtures.js';

/** A reconciler over fake drivers and a manual clock, with its expiry sweeps run through a queue. */
export function reconcilerHarness(
  drivers: Driver[] = [new FakeDriver('ipset')],
  options: Pick<EntryChangesOptions, 'writeAhead' | 'faults'> = {},
) {
  const clock = new ManualClock();
  const log = capturedLogger();
  const queue = new SerialQueue();
  const expired: EntryResult[] = [];
  let reconciler: Reconciler | null = null;
  const store = new EntryStore(
    clock,
    () => void queue.run(async () => expired.push(...((await reconciler?.expireDue()) ?? []))),
    () => undefined,
  );
  reconciler = new Reconciler({
    store,
    drivers: new Map<BackendType, Driver>(drivers.map((driver) => [driver.type, driver])),
    clock,
    logger: log.logger,
    ...options,
  });
  const run = reconciler;
  return {
    clock,
    store,
    log,
    expired,
    ipset: drivers[0] as FakeDriver,
    state: (generation: number, knocs: AgentKnoc[], entries: DesiredEntry[]) =>
      queue.run(() =>
        run.applyState(
          { type: 'state', version: AGENT_PROTOCOL_VERSION, generation, knocs, entries },
          clock.monotonicMs(),
        ),
      ),
    apply: (generation: number, add: DesiredEntry[], remove: EntryKey[] = []) =>
      queue.run(() =>
        run.applyIncrement(
          { type: 'apply', version: AGENT_PROTOCOL_VERSION, generation, add, remove },
          clock.monotonicMs(),
        ),
      ),
    restore: (content: StateFileContent) => queue.run(() => run.restore(content)),
    /** Advances the clock and waits for the expiry sweeps it started. */
    advance: async (ms: number) => {
      clock.advance(ms);
      await queue.idle();
    },
    repairDrift: () => queue.run(() => run.repairDrift()),
    held: () =>
      [...store.entries.values()]
        .filter((entry) => !entry.removing)
        .map((entry) => `${entry.aclId} ${entry.ip}`)
        .sort(),
  };
}
