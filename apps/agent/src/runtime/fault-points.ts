import type { Logger } from 'pino';

/**
 * Test only: the system tests of the write-ahead removal set this to have the agent kill itself
 * (SIGKILL) at one point of its first removal; read once when the agent starts; never set it in
 * production.
 */
export const TEST_ONLY_KILL_AT_ENV = 'POSTERN_AGENT_TEST_ONLY_KILL_AT';

/**
 * Where a removal can be cut short: before the device is touched (the removal is written ahead),
 * between the device call and the state file write that follows it, and after that write.
 */
export const FAULT_POINTS = ['before-device-remove', 'after-device-remove', 'after-removal-written'] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

/**
 * The agent's crash points for tests: each place a removal passes asks {@link reached}, and the
 * process dies there when that point was chosen. Without a chosen point (production) every call is
 * a no-op. `after-removal-written` dies once a state file write taken after the device call has
 * reached the disk, whichever write that is (the write-ahead of a later removal, or the coalesced
 * one), so the test sees exactly what a crash then would leave.
 */
export class FaultPoints {
  /** No fault point: what the agent runs with unless a test says otherwise. */
  static readonly none = new FaultPoints(null);

  readonly #point: FaultPoint | null;
  readonly #kill: () => void;
  /** A removal reached the device; the next snapshot of the state file includes it. */
  #removedOnDevice = false;
  /** The write in progress took its snapshot after a removal reached the device. */
  #writeIncludesRemoval = false;

  constructor(point: FaultPoint | null, kill: () => void = () => process.kill(process.pid, 'SIGKILL')) {
    this.#point = point;
    this.#kill = kill;
  }

  /**
   * The fault point {@link TEST_ONLY_KILL_AT_ENV} names, or none. A value that names no point is
   * refused: a test that mistyped it must not pass by testing nothing.
   */
  static fromEnvironment(env: NodeJS.ProcessEnv, logger: Logger): FaultPoints {
    const value = env[TEST_ONLY_KILL_AT_ENV];
    if (value === undefined || value === '') return FaultPoints.none;
    const point = FAULT_POINTS.find((candidate) => candidate === value);
    if (point === undefined) {
      throw new Error(`${TEST_ONLY_KILL_AT_ENV} must be one of ${FAULT_POINTS.join(', ')}`);
    }
    logger.warn(
      { [TEST_ONLY_KILL_AT_ENV]: point },
      'a test-only fault point is set: this agent kills itself during its first removal',
    );
    return new FaultPoints(point);
  }

  /** Dies here when `point` is the chosen one. */
  reached(point: Exclude<FaultPoint, 'after-removal-written'>): void {
    if (point === 'after-device-remove') this.#removedOnDevice = this.#point === 'after-removal-written';
    if (this.#point === point) this.#kill();
  }

  /** The state file writer took its snapshot for a write. */
  snapshotTaken(): void {
    this.#writeIncludesRemoval = this.#removedOnDevice;
  }

  /** The state file writer's write reached the disk. */
  written(): void {
    if (this.#writeIncludesRemoval) this.#kill();
  }
}
