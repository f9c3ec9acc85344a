/**
 * The set-up the vendor driver unit tests (src/drivers/vendors/<vendor>/<vendor>-driver.test.ts)
 * share: clean-up after each test, driver options that wait no real time, a knoc on one backend and
 * the entries granted on it. Each test keeps what is its own (the fake it starts, the backend and
 * ACL fields, the options only its driver has).
 */
import type { AgentKnocOf, BackendType } from '@postern/protocol';
import type { Logger } from 'pino';
import { afterEach } from 'vitest';
import type { DriverEntry } from '../../src/drivers/driver.js';
import type { RetryPolicy } from '../../src/drivers/http/retry.js';
import { memoryLogger } from './memory-logger.js';

/** What runs after a test: a function, or something to close (a driver, a fake, a server). */
export type CleanupStep = (() => Promise<void> | void) | { close(): Promise<void> | void };

/**
 * Registers an afterEach that runs the steps pushed during the test last-first (a driver pushed
 * after its fake is closed before it), then forgets them. Call once per test file, at the top level.
 */
export function useCleanup(): { push(...steps: CleanupStep[]): void } {
  const steps: CleanupStep[] = [];
  afterEach(async () => {
    for (const step of steps.splice(0).reverse()) await (typeof step === 'function' ? step() : step.close());
  });
  return {
    push(...more) {
      steps.push(...more);
    },
  };
}

/** The options every vendor driver takes, as the driver tests set them. */
export interface TestDriverOptions {
  logger: Logger;
  timeoutMs: number;
  retry: Partial<RetryPolicy>;
}

/**
 * Driver options for a unit test: a debug logger whose JSON lines the test reads (`lines`), 2 s per
 * HTTP try, and a back-off that waits no real time but records each wait it was asked for
 * (`delays`). A Retry-After is cut to 50 ms and the back-off starts at 5 ms, so what `delays` holds
 * says which of the two the driver waited for.
 */
export function testDriverOptions(): { options: TestDriverOptions; lines: string[]; delays: number[] } {
  const { logger, lines } = memoryLogger();
  const delays: number[] = [];
  const sleep = (ms: number) => {
    delays.push(ms);
    return Promise.resolve();
  };
  return { options: { logger, timeoutMs: 2_000, retry: { sleep, maxRetryAfterMs: 50, baseMs: 5 } }, lines, delays };
}

/** The knoc fields a test may set besides the backend and the ACL (the defaults are those of {@link testKnoc}). */
export type TestKnocFields = Partial<Pick<AgentKnocOf<BackendType>, 'aclId' | 'name' | 'url' | 'backendId'>>;

/**
 * The knoc a driver test grants on: ACL `acl-1` named `ssh` (`ssh://fw`) on backend `backend-1` of
 * `backendType`, with the given backend and ACL fields; `fields` sets other ids, name or url.
 */
export function testKnoc<T extends BackendType>(
  backendType: T,
  backend: AgentKnocOf<T>['backend'],
  acl: AgentKnocOf<T>['acl'],
  fields: TestKnocFields = {},
): AgentKnocOf<T> {
  return { aclId: 'acl-1', name: 'ssh', url: 'ssh://fw', backendId: 'backend-1', ...fields, backendType, backend, acl };
}

/** An entry to grant or remove: for `alice`, an hour left, unless `fields` says otherwise. */
export function entry(ip: string, fields: Partial<Omit<DriverEntry, 'ip'>> = {}): DriverEntry {
  return { ip, ttlSeconds: 3600, userName: 'alice', ...fields };
}
