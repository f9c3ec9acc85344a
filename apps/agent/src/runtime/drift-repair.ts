import type { Logger } from 'pino';
import type { AgentKnoc, EntryResult } from '@postern/protocol';
import { canonicalAddress } from '../drivers/addresses.js';
import type { DriverEntry, DriverSet } from '../drivers/driver.js';
import type { Clock } from './clock.js';
import { callDriver, errorMessage, withDriverBudget } from './driver-calls.js';
import type { EntryStore, HeldEntry } from './entry-store.js';
import { agentMetrics } from '../metrics/agent-metrics.js';

/** What one drift check found and did, for the log and the tests. */
export interface DriftReport {
  /** Knocs whose device was listed. */
  checked: number;
  /** Knocs whose device could not be listed (skipped; checked again next time). */
  unlisted: number;
  /** Held entries the device had lost, put back. */
  readded: number;
  /** Addresses the device held that no entry of the agent holds, taken off. */
  removed: number;
  /** Repairs the device refused. */
  failed: number;
  /** One result per entry put back (or not), for the server: a lost grant that cannot be restored shows as its error. */
  results: EntryResult[];
}

/**
 * Converges every device to what the agent holds, between desired states: someone may have removed
 * an address by hand (the grant silently stops working) or added one under the agent's marker (an
 * address nobody granted gets in). Each knoc's device is listed; held entries it lost are applied
 * again with their remaining time, and addresses it holds that no held entry of the same backend
 * type covers are removed (two knocs may share one device set). Drivers list only what carries
 * their marker, so nothing an admin made outside Postern is touched.
 */
export async function repairDrift(options: {
  store: EntryStore;
  drivers: DriverSet;
  clock: Clock;
  logger: Logger;
}): Promise<DriftReport> {
  const { store, drivers, clock, logger } = options;
  const report: DriftReport = { checked: 0, unlisted: 0, readded: 0, removed: 0, failed: 0, results: [] };
  const now = clock.monotonicMs();
  const live = [...store.entries.values()].filter((held) => !held.removing && held.deadlineMs > now);
  const spared = sparedAddresses(live);

  for (const knoc of store.knocs.values()) {
    const driver = drivers.get(knoc.backendType);
    if (driver === undefined || driver.readsBack?.(knoc) === false) continue;
    const listed = await listDevice(drivers, knoc, logger);
    if (listed === null) {
      report.unlisted += 1;
      continue;
    }
    report.checked += 1;
    // What the device lets through by rules that are not Postern's counts as held: never re-added.
    const present = new Set([...listed, ...(await coveredByOthers(drivers, knoc, logger))].map(canonicalAddress));
    // Entries applied under an older configuration of the knoc are the next state's business.
    const lost = live.filter(
      (held) => held.aclId === knoc.aclId && held.knoc === knoc && !present.has(canonicalAddress(held.ip)),
    );
    const extras = listed.filter((ip) => !(spared.get(knoc.backendType)?.has(canonicalAddress(ip)) ?? false));
    const readded = await putBack(drivers, knoc, lost, now);
    const removed = await takeOff(drivers, knoc, extras);
    report.readded += readded.filter((result) => result.ok).length;
    report.removed += removed.ok;
    agentMetrics.driftRepaired(knoc.backendType, 'added', readded.filter((result) => result.ok).length);
    agentMetrics.driftRepaired(knoc.backendType, 'removed', removed.ok);
    report.failed += readded.filter((result) => !result.ok).length + removed.failed;
    report.results.push(...readded);
    if (lost.length > 0 || extras.length > 0) {
      logger.warn(
        {
          aclId: knoc.aclId,
          backendType: knoc.backendType,
          readded: readded.filter((result) => result.ok).length,
          removed: removed.ok,
          failed: readded.filter((result) => !result.ok).length + removed.failed,
        },
        'repaired drift: the device did not hold what the agent holds',
      );
    }
  }
  return report;
}

/** The canonical addresses held on any knoc, by backend type. */
function sparedAddresses(live: readonly HeldEntry[]): Map<string, Set<string>> {
  const spared = new Map<string, Set<string>>();
  for (const held of live) {
    const set = spared.get(held.knoc.backendType) ?? new Set<string>();
    set.add(canonicalAddress(held.ip));
    spared.set(held.knoc.backendType, set);
  }
  return spared;
}

async function listDevice(drivers: DriverSet, knoc: AgentKnoc, logger: Logger): Promise<string[] | null> {
  try {
    const driver = drivers.get(knoc.backendType);
    return driver === undefined ? null : await withDriverBudget(() => driver.list(knoc));
  } catch (error) {
    logger.warn(
      { aclId: knoc.aclId, backendType: knoc.backendType, error: errorMessage(error) },
      'cannot list the device to check for drift; trying again next time',
    );
    return null;
  }
}

/** The addresses the knoc's device lets through by others' rules; none when it cannot say (logged). */
async function coveredByOthers(drivers: DriverSet, knoc: AgentKnoc, logger: Logger): Promise<string[]> {
  const driver = drivers.get(knoc.backendType);
  if (driver?.coveredByOthers === undefined) return [];
  try {
    const covered = driver.coveredByOthers.bind(driver);
    return await withDriverBudget(() => covered(knoc));
  } catch (error) {
    logger.warn(
      { aclId: knoc.aclId, backendType: knoc.backendType, error: errorMessage(error) },
      'cannot read which addresses the device lets through by other rules; checking Postern’s own only',
    );
    return [];
  }
}

async function putBack(
  drivers: DriverSet,
  knoc: AgentKnoc,
  lost: readonly HeldEntry[],
  now: number,
): Promise<EntryResult[]> {
  if (lost.length === 0) return [];
  const entries: DriverEntry[] = lost.map((held) => ({
    ip: held.ip,
    ttlSeconds: Math.max(1, Math.ceil((held.deadlineMs - now) / 1000)),
    userName: held.userName,
  }));
  const outcomes = await callDriver(drivers, 'apply', knoc, entries);
  return outcomes.map((outcome) => ({
    aclId: knoc.aclId,
    ip: outcome.ip,
    action: 'add',
    ok: outcome.ok,
    error: outcome.error,
  }));
}

async function takeOff(
  drivers: DriverSet,
  knoc: AgentKnoc,
  extras: readonly string[],
): Promise<{ ok: number; failed: number }> {
  if (extras.length === 0) return { ok: 0, failed: 0 };
  const outcomes = await callDriver(
    drivers,
    'remove',
    knoc,
    extras.map((ip) => ({ ip, ttlSeconds: 1, userName: '' })),
  );
  const ok = outcomes.filter((outcome) => outcome.ok).length;
  return { ok, failed: outcomes.length - ok };
}
