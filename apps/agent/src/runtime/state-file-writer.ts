import type { Logger } from 'pino';
import { errorMessage } from './driver-calls.js';
import { writeStateFile, type StateFileContent } from './state-file.js';

/** Coalesce changes: at most one write per this many milliseconds. */
const STATE_WRITE_INTERVAL_MS = 100;
/** After a failed write (disk full), try again after this long even without a new change. */
const RETRY_AFTER_FAILURE_MS = 5_000;

/**
 * Writes the state file after changes, coalesced: a burst of changes (a `state` with ten thousand
 * entries) is one write, at most every {@link STATE_WRITE_INTERVAL_MS}. The content is taken when
 * the write starts, so it is always the latest. {@link flush} writes now and is called on shutdown.
 */
export class StateFileWriter {
  readonly #file: string;
  readonly #snapshot: () => StateFileContent;
  readonly #logger: Logger;
  readonly #onWritten: (content: StateFileContent) => void;
  #dirty = false;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> | null = null;
  #stopped = false;

  /**
   * `onWritten` runs after each write that reached the disk, with the content written (the removal
   * journal is emptied once a write includes all of it; the test-only fault points use it too).
   */
  constructor(
    file: string,
    snapshot: () => StateFileContent,
    logger: Logger,
    onWritten: (content: StateFileContent) => void = () => undefined,
  ) {
    this.#file = file;
    this.#snapshot = snapshot;
    this.#logger = logger;
    this.#onWritten = onWritten;
  }

  /** Notes a change; the file is written within {@link STATE_WRITE_INTERVAL_MS}. */
  markDirty(): void {
    this.#dirty = true;
    this.#schedule(STATE_WRITE_INTERVAL_MS);
  }

  /**
   * Writes pending changes now and waits for the write (and one already running) to finish: on
   * return the file on the disk holds every change made before the call. A write that fails is
   * logged and retried later; flush still resolves.
   */
  async flush(): Promise<void> {
    this.#cancelTimer();
    while (this.#writing !== null) await this.#writing;
    if (this.#dirty) await this.#write();
  }

  /** Flushes and stops writing. */
  async stop(): Promise<void> {
    await this.flush();
    this.#stopped = true;
    this.#cancelTimer();
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== null || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      // A write in progress reschedules when it ends (the content it took may be older).
      if (this.#writing === null && this.#dirty) void this.#write();
    }, delayMs);
  }

  #cancelTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #write(): Promise<void> {
    this.#dirty = false;
    const content = this.#snapshot();
    this.#writing = writeStateFile(this.#file, content)
      .then(() => this.#onWritten(content))
      .catch((error: unknown) => {
        this.#dirty = true;
        this.#logger.error({ stateFile: this.#file, error: errorMessage(error) }, 'cannot write the state file');
        this.#cancelTimer();
        this.#schedule(RETRY_AFTER_FAILURE_MS);
      })
      .finally(() => {
        this.#writing = null;
        if (this.#dirty) this.#schedule(STATE_WRITE_INTERVAL_MS);
      });
    return this.#writing;
  }
}
