import { readFileSync } from 'node:fs';
import type { BackendType } from '@postern/protocol';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/config.js';
import { findExecutable } from './command.js';
import type { Driver, DriverSet } from './driver.js';
import { HaproxyDriver } from './haproxy/haproxy-driver.js';
import { IpsetDriver } from './ipset/ipset-driver.js';
import { KnocproxyDriver } from './knocproxy/knocproxy-driver.js';
import type { TlsFiles } from './knocproxy/proxy-listener.js';
import { ScriptDriver } from './script/script-driver.js';

export type { Driver, DriverEntry, DriverSet, EntryOutcome } from './driver.js';
export { canonicalAddress, parseAddress } from './addresses.js';
export { clampDeviceTimeout } from './device-timeout.js';

/** The parts of the configuration the drivers read. */
export type DriverConfig = Pick<AgentConfig, 'ipset' | 'haproxy' | 'scripts' | 'knocproxy'>;

/** Replaces how drivers reach the system; tests use it to keep ipset inside a network namespace. */
export interface DriverOverrides {
  /** The argv that runs ipset (see {@link ipsetCommand} for the default). */
  ipsetCommand?: readonly string[];
}

/**
 * The argv that runs ipset as configured: the binary found in PATH or the sbin directories (so a
 * sudoers rule can name its absolute path), through `sudo -n` when ipset.useSudo is on. `-n` makes
 * sudo fail at once instead of waiting for a password nobody will type.
 */
export function ipsetCommand(config: Pick<AgentConfig, 'ipset'>): string[] {
  const ipset = findExecutable('ipset') ?? 'ipset';
  return config.ipset.useSudo ? ['sudo', '-n', ipset] : [ipset];
}

/**
 * The drivers this agent has, by backend type. Every built-in type is present: a driver whose
 * prerequisites are missing (ipset not installed, scripts disabled) reports that per entry, and
 * capability detection tells the server beforehand. Vendor types have no driver yet.
 */
export function createDrivers(config: DriverConfig, logger: Logger, overrides: DriverOverrides = {}): DriverSet {
  const drivers: Driver[] = [
    new IpsetDriver({
      allowedSets: config.ipset.allowedSets,
      command: overrides.ipsetCommand ?? ipsetCommand(config),
      logger: logger.child({ driver: 'ipset' }),
    }),
    new HaproxyDriver({ socket: config.haproxy.socket, logger: logger.child({ driver: 'haproxy' }) }),
    new ScriptDriver({ ...config.scripts, logger: logger.child({ driver: 'script' }) }),
    new KnocproxyDriver({ tls: readTlsFiles(config), logger: logger.child({ driver: 'knocproxy' }) }),
  ];
  return new Map<BackendType, Driver>(drivers.map((driver) => [driver.type, driver]));
}

/** Closes every driver (listeners, sockets, running scripts), whatever the others do. */
export async function closeDrivers(drivers: DriverSet): Promise<void> {
  await Promise.allSettled([...drivers.values()].map((driver) => driver.close()));
}

/** knocproxy's certificate and key, read once at start (the configuration checked them). */
function readTlsFiles(config: DriverConfig): TlsFiles | null {
  const { tlsCertFile, tlsKeyFile } = config.knocproxy;
  if (tlsCertFile === null || tlsKeyFile === null) return null;
  return { cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) };
}
