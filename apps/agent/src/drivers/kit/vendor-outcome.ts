import type { Logger } from 'pino';
import type { EntryOutcome } from '../driver.js';

/**
 * What a vendor's answer to one change means for the entry (VENDORS.md 1.9): each driver states how
 * its vendor spells "already exists", "not found" and "limit reached", and this turns an answer into
 * one of six outcomes the driver acts on.
 */
export type VendorOutcome = 'applied' | 'alreadyPresent' | 'alreadyAbsent' | 'retryable' | 'limitReached' | 'fatal';

/** What the change was meant to do: an add may find the object there, a remove may find it gone. */
export type VendorIntent = 'add' | 'remove' | 'read';

/** A vendor's answer: its HTTP status (0 when the transport has none) and parsed body. */
export interface VendorAnswer {
  status: number;
  body: unknown;
}

/** How a vendor spells the answers that are not plain success or failure. Each is checked first. */
export interface VendorRules {
  alreadyPresent?: (answer: VendorAnswer) => boolean;
  alreadyAbsent?: (answer: VendorAnswer) => boolean;
  limitReached?: (answer: VendorAnswer) => boolean;
  /** Vendor-specific "try later" answers beyond 408/429/502/503/504. */
  retryable?: (answer: VendorAnswer) => boolean;
  /** A 2xx that still reports a failure in its body (XML APIs answer 200 with status="error"). */
  failedDespiteSuccess?: (answer: VendorAnswer) => boolean;
}

const RETRYABLE = new Set([408, 429, 502, 503, 504]);

export function classifyVendorAnswer(
  intent: VendorIntent,
  answer: VendorAnswer,
  rules: VendorRules = {},
): VendorOutcome {
  if (rules.limitReached?.(answer) === true) return 'limitReached';
  if (intent === 'add' && rules.alreadyPresent?.(answer) === true) return 'alreadyPresent';
  if (intent === 'remove' && rules.alreadyAbsent?.(answer) === true) return 'alreadyAbsent';
  if (answer.status >= 200 && answer.status <= 299 && rules.failedDespiteSuccess?.(answer) !== true) return 'applied';
  if (RETRYABLE.has(answer.status) || rules.retryable?.(answer) === true) return 'retryable';
  return 'fatal';
}

/** The outcomes that leave the device as the change wanted it. */
export function isDone(outcome: VendorOutcome): boolean {
  return outcome === 'applied' || outcome === 'alreadyPresent' || outcome === 'alreadyAbsent';
}

/**
 * One warning per call that had failed entries: how many and the first reason. Outcome errors come
 * from the vendor clients, which have already redacted every credential.
 */
export function logFailedEntries(
  logger: Logger,
  vendor: string,
  knoc: { aclId: string },
  action: string,
  outcomes: EntryOutcome[],
): EntryOutcome[] {
  const failures = outcomes.filter((outcome) => !outcome.ok);
  if (failures.length > 0) {
    logger.warn(
      { aclId: knoc.aclId, action, failed: failures.length, first: failures[0]?.error },
      `${vendor} entries failed`,
    );
  }
  return outcomes;
}
