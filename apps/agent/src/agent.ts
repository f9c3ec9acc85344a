import type { Logger } from 'pino';
import type { AgentConfig } from './config/config.js';
import { startAgentRuntime } from './runtime/index.js';
import { FaultPoints } from './runtime/fault-points.js';
import { agentMetrics } from './metrics/agent-metrics.js';
import { startAgentMetricsListener } from './metrics/metrics-listener.js';

/** A started agent. */
export interface RunningAgent {
  /**
   * Stops the agent's work; `run` calls it once on SIGTERM or SIGINT: stops reconnecting, closes the
   * server connection, writes the state file and closes the drivers.
   */
  stop(): Promise<void>;
}

/**
 * Starts the agent's work for a validated configuration: puts the state file's unexpired entries
 * back on the devices, starts the local expiry timers and connects to the server (see
 * {@link startAgentRuntime}). Rejects only when the state file cannot be read at all, or the
 * key file cannot be made.
 */
export async function startAgent(config: AgentConfig, logger: Logger): Promise<RunningAgent> {
  // Read once, here: the test-only crash points of the system tests (never set in production).
  const faults = FaultPoints.fromEnvironment(process.env, logger);
  const runtime = await startAgentRuntime({ config, logger, faults });
  agentMetrics.watchConnection(() => runtime.isConnected());
  let listener: Awaited<ReturnType<typeof startAgentMetricsListener>> | null = null;
  if (config.metrics.listen !== null) {
    agentMetrics.collectProcessMetrics();
    try {
      listener = await startAgentMetricsListener(config.metrics.listen, agentMetrics, logger);
    } catch (error) {
      await runtime.stop();
      throw error;
    }
  }
  return {
    stop: async () => {
      await listener?.close();
      await runtime.stop();
    },
  };
}
