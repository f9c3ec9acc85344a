import type { Logger } from 'pino';
import type { AgentConfig } from './config/config.js';

/** A started agent. */
export interface RunningAgent {
  /**
   * Stops the agent's work; `run` calls it once on SIGTERM or SIGINT. Closing the server connection
   * and flushing the state file belong here.
   */
  stop(): Promise<void>;
}

/**
 * Starts the agent's work for a validated configuration. It does nothing yet: the WebSocket to
 * `config.connectUrl`, capability detection and the drivers arrive with the next issue and start
 * here, so `run` and its shutdown path stay as they are.
 */
export function startAgent(_config: AgentConfig, _logger: Logger): Promise<RunningAgent> {
  return Promise.resolve({ stop: () => Promise.resolve() });
}
