import { POSTERN_VERSION } from '@postern/protocol';
import { startAgent, type RunningAgent } from './agent.js';
import { loadConfig } from './config/config.js';
import { describeConfig } from './config/describe.js';
import type { ConfigFlags } from './config/sources.js';
import { createLogger } from './logger.js';
import { listenForStopSignal } from './shutdown.js';

/**
 * `postern-agent run`: validate the configuration, start the agent, and on SIGTERM or SIGINT stop
 * it. This is the one place the process starts and shuts down; everything the agent opens is closed
 * through the `stop` it gets back from {@link startAgent}.
 */
export async function runAgent(flags: ConfigFlags): Promise<void> {
  const { config, warnings } = loadConfig({ flags, createStateDirectory: true });
  const logger = createLogger(config.logLevel);
  const stopRequest = listenForStopSignal();
  logger.info({ version: POSTERN_VERSION, config: describeConfig(config) }, 'postern-agent starting');
  for (const warning of warnings) logger.warn(warning);

  let agent: RunningAgent;
  try {
    agent = await startAgent(config, logger);
  } catch (error) {
    stopRequest.cancel();
    throw error;
  }
  const signal = await stopRequest.received;
  logger.info({ signal }, 'stopping');
  await agent.stop();
}
