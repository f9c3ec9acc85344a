/** The signals that ask the agent to stop: systemd and container runtimes send SIGTERM, a terminal SIGINT. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** A pending request to stop; see {@link listenForStopSignal}. */
export interface StopRequest {
  /** Resolves with the first stop signal received. */
  readonly received: Promise<NodeJS.Signals>;
  /** Stops listening without a signal (start-up failed), so the process can exit. */
  cancel(): void;
}

/**
 * Starts listening for SIGTERM and SIGINT. Listen before anything starts, so a signal that arrives
 * during start-up still leads to a graceful stop. Until a signal (or {@link StopRequest.cancel}) it
 * holds the event loop open, because the agent may have nothing else pending and must keep running.
 * Afterwards the handlers are gone, so a second Ctrl-C gets Node's default (exit at once) if a
 * graceful stop hangs.
 */
export function listenForStopSignal(): StopRequest {
  let finish: (signal: NodeJS.Signals | null) => void = () => undefined;
  const received = new Promise<NodeJS.Signals>((resolve) => {
    const keepAlive = setInterval(() => undefined, 2 ** 30);
    const onSignal = (signal: NodeJS.Signals) => finish(signal);
    finish = (signal) => {
      clearInterval(keepAlive);
      for (const name of STOP_SIGNALS) process.off(name, onSignal);
      if (signal !== null) resolve(signal);
    };
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
  });
  return { received, cancel: () => finish(null) };
}
