import type { Logger } from 'pino';
import { startInterval, type IntervalHandle } from '../lib/start-interval.js';
import { StoreOutageLog } from './store-outage-log.js';

/**
 * Runs background work on the store every `intervalMs`, one pass at a time, until stopped. A pass
 * that finds the store locked by another process or out of reach is logged once per outage, and the
 * next pass does what it could not; any other failure is logged and the next pass tries again.
 */
export function startStoreJob(
  logger: Logger,
  name: string,
  intervalMs: number,
  run: (pass: number) => Promise<void>,
): IntervalHandle {
  return startInterval({ name, intervalMs, logger, outcomes: new StoreOutageLog(logger, `the ${name}`), run });
}
