import { writeFileSync } from 'node:fs';
import { afterEach, type TestContext } from 'vitest';
import type { AgentCapabilities } from '@postern/protocol';
import type { AgentConfig } from '../config/config.js';
import { startAgentRuntime, type AgentRuntimeOptions } from '../runtime/agent-runtime.js';
import type { StateFileContent, StoredEntry } from '../runtime/state-file.js';
import { createConfigFixture, type ConfigFixture } from './config-fixture.js';
import { FakeDriver } from './fake-driver.js';
import { FakePosternServer } from './fake-postern-server.js';
import { capturedLogger } from './runtime-fixtures.js';

/** The capabilities the runtime's tests report: an ipset host. */
export const CAPABILITIES: AgentCapabilities = {
  'os-release': { NAME: 'Debian GNU/Linux', VERSION: '12 (bookworm)' },
  ipset: { command_available: true, sudo_enabled: false, ipsets: [{ name: 'postern4', address_family: 'inet' }] },
  script: { enabled: false },
  haproxy: { socket_location: '' },
  backend_types: ['ipset'],
};

/** What {@link runtimeHarness}'s setup takes: a TLS server, and extra configuration variables. */
export interface RuntimeHarnessOptions {
  tls?: { key: string; cert: string };
  env?: Record<string, string>;
}

/**
 * Registers an `afterEach` (in the calling test file) that stops every server, runtime and fixture
 * made since, and returns `setup`: a fake server, a config pointing at it, and a way to start
 * runtimes against both. A concurrent test (`it.concurrent`) passes its context: then what its
 * setup made is stopped when that test ends, not by the shared `afterEach`.
 */
export function runtimeHarness() {
  const shared: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of shared.splice(0).reverse()) await cleanup();
  });

  return async function setup(options: RuntimeHarnessOptions = {}, context?: Pick<TestContext, 'onTestFinished'>) {
    const own: (() => Promise<void> | void)[] = [];
    const cleanups = context === undefined ? shared : own;
    context?.onTestFinished(async () => {
      for (const cleanup of own.splice(0).reverse()) await cleanup();
    });
    const server = await FakePosternServer.start(options.tls === undefined ? {} : { tls: options.tls });
    cleanups.push(() => server.stop());
    const fixture: ConfigFixture = createConfigFixture();
    cleanups.push(() => fixture.remove());
    const loaded = fixture.load({ env: { POSTERN_AGENT_SERVER_URL: server.serverUrl, ...options.env } }).config;
    const log = capturedLogger();

    const start = async (
      overrides: Partial<AgentRuntimeOptions> & { heartbeatSeconds?: number; driftCheckSeconds?: number } = {},
    ) => {
      // Drift checks only where a test asks for them (a fraction of a second is fine here, not in config).
      const config: AgentConfig = {
        ...loaded,
        heartbeatSeconds: overrides.heartbeatSeconds ?? 5,
        driftCheckSeconds: overrides.driftCheckSeconds ?? 0,
      };
      const runtime = await startAgentRuntime({
        config,
        logger: log.logger,
        drivers: new Map([['ipset', driver]]),
        capabilities: CAPABILITIES,
        reconnect: { baseMs: 10, capMs: 200 },
        ...overrides,
      });
      cleanups.push(() => runtime.stop());
      return runtime;
    };
    const driver = new FakeDriver('ipset');
    return { server, fixture, config: loaded, log, driver, start };
  };
}

/** Writes a state file as a previous run would have left it. */
export function writeState(file: string, content: Partial<StateFileContent>): void {
  const full: StateFileContent = {
    formatVersion: 1,
    generation: 0,
    stateGeneration: 0,
    knocs: [],
    entries: [],
    tombstones: [],
    ...content,
  };
  writeFileSync(file, JSON.stringify(full), { mode: 0o600 });
}

/** An entry of alice's as a previous run stored it, on the state file's first knoc. */
export function storedEntry(aclId: string, ip: string, expiresAt: number, generation: number): StoredEntry {
  return { aclId, ip, userName: 'alice', expiresAt, generation, knoc: 0, removing: false };
}
