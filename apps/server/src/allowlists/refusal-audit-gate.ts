/**
 * Decides which refused requests reach the audit log, so a scanner cannot flood it: at most one
 * entry per subject (a client's throttle subject: an IPv4 address, or an IPv6 /64) per interval,
 * and at most `maxPerInterval` entries per interval in all, whatever the number of addresses. Kept
 * in memory per server process: the log is a record for people, and one entry per address per
 * minute per replica is still one a person can read.
 */
export class RefusalAuditGate {
  readonly #lastRecorded = new Map<string, number>();
  #windowStart = Number.NEGATIVE_INFINITY;
  #recordedInWindow = 0;

  constructor(
    private readonly intervalMs = 60_000,
    private readonly maxPerInterval = 100,
  ) {}

  /** True when a refusal from `subject` at `now` should be audited; then it counts as recorded. */
  admit(subject: string, now: number): boolean {
    if (now - this.#windowStart >= this.intervalMs) {
      this.#windowStart = now;
      this.#recordedInWindow = 0;
      this.#forgetBefore(now - this.intervalMs);
    }
    const last = this.#lastRecorded.get(subject);
    if (last !== undefined && now - last < this.intervalMs) return false;
    if (this.#recordedInWindow >= this.maxPerInterval) return false;
    this.#recordedInWindow += 1;
    this.#lastRecorded.set(subject, now);
    return true;
  }

  /** Entries older than one interval no longer hold anything back; dropping them bounds the map. */
  #forgetBefore(cutoff: number): void {
    for (const [subject, at] of this.#lastRecorded) {
      if (at <= cutoff) this.#lastRecorded.delete(subject);
    }
  }
}
