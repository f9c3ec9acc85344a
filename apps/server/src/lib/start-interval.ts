import type { Logger } from 'pino';

/**
 * Takes note of each pass's outcome before the error is logged, such as `StoreOutageLog`: `failed`
 * returns true when it has dealt with the error itself (a store outage, logged once per episode).
 */
export interface PassOutcomeLog {
  failed(error: unknown): boolean;
  succeeded(): void;
}

export interface IntervalOptions {
  /** For the log line of a failed pass: "<name> failed". */
  name: string;
  intervalMs: number;
  logger: Pick<Logger, 'error'>;
  /** One pass; `pass` counts the passes started, from 0. */
  run: (pass: number) => Promise<void>;
  outcomes?: PassOutcomeLog;
}

export interface IntervalHandle {
  /** No further passes start; resolves once the pass in flight, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every `intervalMs` until stopped, one pass at a time: a tick that finds the previous pass
 * still running is skipped, so passes never overlap and stop() awaits the only one in flight. A failed
 * pass is logged and the next tick tries again. The timer does not keep the process alive.
 */
export function startInterval({ name, intervalMs, logger, run, outcomes }: IntervalOptions): IntervalHandle {
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let pass = 0;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    running = Promise.resolve()
      .then(() => run(pass++))
      .then(() => outcomes?.succeeded())
      .catch((error: unknown) => {
        if (outcomes?.failed(error) !== true) logger.error({ err: error }, `${name} failed`);
      })
      .finally(() => {
        busy = false;
      });
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
