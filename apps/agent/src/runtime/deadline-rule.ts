/**
 * How long an entry may stay on its device when the server (re)sends it. The server computes a
 * `ttlSeconds` from its own clock, so a server clock set back by an hour sends an hour too many; the
 * agent therefore never lets a message raise what an entry already has, except by an explicit
 * extension: the entry's `endsAt` (its end in the server's time, which a clock step does not move)
 * grew. Even then the deadline grows by at most what `endsAt` grew, so an extension sent by a clock
 * that was also set back cannot add the step on top.
 */

/** A raise smaller than this is the ttl's rounding and the message's transit, not a clock step. */
export const RAISE_TOLERANCE_MS = 5_000;

/** What the agent knows when a desired entry arrives. */
export interface DeadlineInput {
  /** The deadline the server's ttl gives: when the message arrived plus ttlSeconds (monotonic ms). */
  offeredMs: number;
  /** The message's `endsAt` (server time), when the server sent one. */
  offeredEndsAt: number | undefined;
  /** The entry the agent holds on this knoc configuration (not one being removed), if any. */
  held: { deadlineMs: number; endsAt: number | undefined } | undefined;
  /**
   * For an entry the agent does not hold: when the device's own timeout ends it (monotonic ms), if
   * the device already has the address with a timeout (a lost state file, a crash before the write).
   */
  deviceDeadlineMs: number | undefined;
}

/** The deadline to keep, and how much later the server's ttl would have put it (0: nothing refused). */
export interface DeadlineDecision {
  deadlineMs: number;
  /** Milliseconds of raise refused; compare with {@link RAISE_TOLERANCE_MS} before reporting it. */
  refusedMs: number;
}

/**
 * The rule:
 * - held, and `endsAt` grew (both known): an extension; the deadline may grow by what `endsAt` grew,
 *   and never beyond what the ttl offers;
 * - held otherwise (same or earlier `endsAt`, or either side without one: an older server or state
 *   file): the earlier of the held deadline and the offered one, so a resend can shorten access but
 *   never lengthen it;
 * - not held, the device has it with a timeout: the earlier of the device's end and the offered one;
 * - not held, not on the device: the offered deadline (a new grant; its ttl was computed when its
 *   end was, from the same clock).
 */
export function allowedDeadline(input: DeadlineInput): DeadlineDecision {
  const { offeredMs, offeredEndsAt, held, deviceDeadlineMs } = input;
  let limit: number;
  if (held !== undefined) {
    const grew = offeredEndsAt !== undefined && held.endsAt !== undefined && offeredEndsAt > held.endsAt;
    limit = grew ? held.deadlineMs + (offeredEndsAt - (held.endsAt ?? offeredEndsAt)) : held.deadlineMs;
  } else if (deviceDeadlineMs !== undefined) {
    limit = deviceDeadlineMs;
  } else {
    return { deadlineMs: offeredMs, refusedMs: 0 };
  }
  const deadlineMs = Math.min(offeredMs, limit);
  return { deadlineMs, refusedMs: offeredMs - deadlineMs };
}
