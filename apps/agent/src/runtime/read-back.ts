import type { AgentKnoc, DeviceReadBack } from '@postern/protocol';
import { canonicalAddress } from '../drivers/addresses.js';
import type { DriverSet } from '../drivers/driver.js';
import { errorMessage, withDriverBudget } from './driver-calls.js';

/** What reading a device back found for one address, as its entry result carries it. */
export interface ReadBackFinding {
  readBack: DeviceReadBack;
  /** Why the device could not be read (with `unreadable`). */
  readBackDetail?: string;
}

/** The protocol's limit on a read-back's detail. */
const MAX_DETAIL_LENGTH = 1000;

/**
 * Reads the knoc's device back for addresses just applied that the server asked to verify (a knoc
 * test): one listing through the driver's own read path (the one drift repair uses), under a call
 * budget. An address the device lets through by others' rules counts as held, as in drift repair.
 * Never throws: a device that cannot be read, or whose listing fails, is `unreadable` with why.
 */
export async function readBack(
  drivers: DriverSet,
  knoc: AgentKnoc,
  ips: readonly string[],
  budgetMs?: number,
): Promise<Map<string, ReadBackFinding>> {
  const unreadable = (detail: string) =>
    new Map(
      ips.map((ip) => [ip, { readBack: 'unreadable' as const, readBackDetail: detail.slice(0, MAX_DETAIL_LENGTH) }]),
    );
  const driver = drivers.get(knoc.backendType);
  if (driver === undefined) return unreadable(`this agent cannot drive ${knoc.backendType} backends`);
  if (driver.readsBack?.(knoc) === false) {
    return unreadable(`${knoc.backendType} backends cannot be read back: nothing on them can be listed`);
  }
  try {
    const listed = await withDriverBudget(() => driver.list(knoc), budgetMs);
    const coveredByOthers = driver.coveredByOthers?.bind(driver);
    const covered = coveredByOthers === undefined ? [] : await withDriverBudget(() => coveredByOthers(knoc), budgetMs);
    const present = new Set([...listed, ...covered].map(canonicalAddress));
    return new Map(
      ips.map((ip) => [ip, { readBack: present.has(canonicalAddress(ip)) ? ('held' as const) : ('absent' as const) }]),
    );
  } catch (error) {
    return unreadable(`reading the ${knoc.backendType} device back failed: ${errorMessage(error)}`);
  }
}
