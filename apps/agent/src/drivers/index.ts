import type { BackendType } from '@postern/protocol';
import type { Logger } from 'pino';
import type { Driver, DriverSet } from './driver.js';
import { DRIVER_FACTORIES, type DriverConfig, type DriverFactory, type DriverOverrides } from './registry.js';

export type { Driver, DriverEntry, DriverSet, EntryOutcome } from './driver.js';
export { canonicalAddress, parseAddress } from './addresses.js';
export { clampDeviceTimeout } from './device-timeout.js';
export {
  DRIVER_FACTORIES,
  drivenBackendTypes,
  ipsetCommand,
  nftablesCommand,
  type DriverConfig,
  type DriverContext,
  type DriverFactory,
  type DriverOverrides,
} from './registry.js';

/**
 * The drivers this agent has, by backend type. Every built-in type is present: a driver whose
 * prerequisites are missing (ipset not installed, scripts disabled) reports that per entry, and
 * capability detection tells the server beforehand. Which types have a driver is
 * {@link DRIVER_FACTORIES} (registry.ts).
 */
export function createDrivers(config: DriverConfig, logger: Logger, overrides: DriverOverrides = {}): DriverSet {
  const drivers = new Map<BackendType, Driver>();
  for (const [type, factory] of Object.entries(DRIVER_FACTORIES) as [BackendType, DriverFactory | null][]) {
    if (factory !== null) drivers.set(type, factory({ config, logger, overrides }));
  }
  return drivers;
}

/** Closes every driver (listeners, sockets, running scripts), whatever the others do. */
export async function closeDrivers(drivers: DriverSet): Promise<void> {
  await Promise.allSettled([...drivers.values()].map((driver) => driver.close()));
}
