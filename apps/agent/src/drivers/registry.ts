import { readFileSync } from 'node:fs';
import type { BackendType } from '@postern/protocol';
import type { Logger } from 'pino';
import type { AgentConfig } from '../config/config.js';
import { findExecutable } from './command.js';
import type { Driver } from './driver.js';
import { HaproxyDriver } from './haproxy/haproxy-driver.js';
import { IpsetDriver } from './ipset/ipset-driver.js';
import { NftablesDriver } from './nftables/nftables-driver.js';
import { KnocproxyDriver } from './knocproxy/knocproxy-driver.js';
import type { TlsFiles } from './knocproxy/proxy-listener.js';
import { ScriptDriver } from './script/script-driver.js';
import { AwsDriver } from './vendors/aws/aws-driver.js';
import { AzureNsgDriver } from './vendors/azure/azure-nsg-driver.js';
import { FirepowerDriver } from './vendors/firepower/firepower-driver.js';
import { FortimanagerDriver } from './vendors/fortimanager/fortimanager-driver.js';
import { FortiosDriver } from './vendors/fortios/fortios-driver.js';
import { PanosDriver } from './vendors/panos/panos-driver.js';
import { SophosSfosDriver } from './vendors/sophossfos/sophossfos-driver.js';
import { SophosUtmDriver } from './vendors/sophosutm/sophosutm-driver.js';

/** The parts of the configuration the drivers read. */
export type DriverConfig = Pick<AgentConfig, 'ipset' | 'haproxy' | 'scripts' | 'knocproxy'> &
  Partial<Pick<AgentConfig, 'nftables' | 'aws' | 'azure' | 'caFile'>>;

/** Replaces how drivers reach the system; tests use it to keep ipset inside a network namespace. */
export interface DriverOverrides {
  /** The argv that runs ipset (see {@link ipsetCommand} for the default). */
  ipsetCommand?: readonly string[];
  /** The argv that runs nft (see {@link nftablesCommand} for the default). */
  nftablesCommand?: readonly string[];
}

/** What a factory gets to build its driver. */
export interface DriverContext {
  config: DriverConfig;
  /** The agent's logger; a factory makes a child named after its driver. */
  logger: Logger;
  overrides: DriverOverrides;
}

export type DriverFactory = (context: DriverContext) => Driver;

/**
 * The argv that runs ipset as configured: the binary found in PATH or the sbin directories (so a
 * sudoers rule can name its absolute path), through `sudo -n` when ipset.useSudo is on. `-n` makes
 * sudo fail at once instead of waiting for a password nobody will type.
 */
export function ipsetCommand(config: Pick<AgentConfig, 'ipset'>): string[] {
  const ipset = findExecutable('ipset') ?? 'ipset';
  return config.ipset.useSudo ? ['sudo', '-n', ipset] : [ipset];
}

/** The argv that runs nft as configured, found and run through sudo as {@link ipsetCommand} says. */
export function nftablesCommand(config: Partial<Pick<AgentConfig, 'nftables'>>): string[] {
  const nft = findExecutable('nft') ?? 'nft';
  return config.nftables?.useSudo === true ? ['sudo', '-n', nft] : [nft];
}

/** knocproxy's certificate and key, read once at start (the configuration checked them). */
function readTlsFiles(config: DriverConfig): TlsFiles | null {
  const { tlsCertFile, tlsKeyFile } = config.knocproxy;
  if (tlsCertFile === null || tlsKeyFile === null) return null;
  return { cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) };
}

/**
 * The agent's statement of what it can drive: one entry per backend type, null for a type without a
 * driver (allowlist needs none: the server answers it; vendor drivers arrive one by one). The
 * `satisfies` makes a new BackendType without an entry here a compile error, so adding a type forces
 * the decision.
 */
export const DRIVER_FACTORIES = {
  ipset: ({ config, logger, overrides }) =>
    new IpsetDriver({
      allowedSets: config.ipset.allowedSets,
      command: overrides.ipsetCommand ?? ipsetCommand(config),
      logger: logger.child({ driver: 'ipset' }),
    }),
  nftables: ({ config, logger, overrides }) =>
    new NftablesDriver({
      allowedSets: config.nftables?.allowedSets ?? [],
      command: overrides.nftablesCommand ?? nftablesCommand(config),
      logger: logger.child({ driver: 'nftables' }),
    }),
  allowlist: null,
  haproxy: ({ config, logger }) =>
    new HaproxyDriver({ socket: config.haproxy.socket, logger: logger.child({ driver: 'haproxy' }) }),
  knocproxy: ({ config, logger }) =>
    new KnocproxyDriver({ tls: readTlsFiles(config), logger: logger.child({ driver: 'knocproxy' }) }),
  script: ({ config, logger }) =>
    new ScriptDriver({ ...config.scripts, caFile: config.caFile ?? null, logger: logger.child({ driver: 'script' }) }),
  fortios: ({ logger }) => new FortiosDriver({ logger: logger.child({ driver: 'fortios' }) }),
  fortimanager: ({ logger }) => new FortimanagerDriver({ logger: logger.child({ driver: 'fortimanager' }) }),
  panos: ({ logger }) => new PanosDriver({ logger: logger.child({ driver: 'panos' }) }),
  firepower: ({ logger }) => new FirepowerDriver({ logger: logger.child({ driver: 'firepower' }) }),
  sophosutm: ({ logger }) => new SophosUtmDriver({ logger: logger.child({ driver: 'sophosutm' }) }),
  sophossfos: ({ logger }) => new SophosSfosDriver({ logger: logger.child({ driver: 'sophossfos' }) }),
  aws: ({ config, logger }) =>
    new AwsDriver({ endpoint: config.aws?.endpoint ?? null, logger: logger.child({ driver: 'aws' }) }),
  azure: ({ config, logger }) =>
    new AzureNsgDriver({
      logger: logger.child({ driver: 'azure' }),
      ...(config.azure === undefined
        ? {}
        : {
            authorityHost: config.azure.authorityHost,
            managementEndpoint: config.azure.managementEndpoint,
            priorityBand: { from: config.azure.priorityFrom, to: config.azure.priorityTo },
          }),
    }),
} satisfies Record<BackendType, DriverFactory | null>;

/** The backend types this agent has a driver for, in {@link DRIVER_FACTORIES} order. */
export function drivenBackendTypes(): BackendType[] {
  return (Object.keys(DRIVER_FACTORIES) as BackendType[]).filter((type) => DRIVER_FACTORIES[type] !== null);
}
