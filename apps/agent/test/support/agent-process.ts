import path from 'node:path';
import { cleanEnv, REPO_ROOT, startSourceCommand, type Finished, type RunningProcess } from '@postern/test-support';

/** The real entry point, run from source. */
export const AGENT_MAIN = path.join(REPO_ROOT, 'apps/agent/src/main.ts');

/**
 * The test runner's environment without any POSTERN_AGENT_* variable (so the host's settings cannot
 * leak in), plus `extra`.
 */
export function agentEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv(['POSTERN_AGENT_'], extra);
}

/** Starts `postern-agent …args` from source. */
export function startAgentProcess(args: string[], env: NodeJS.ProcessEnv): RunningProcess {
  return startSourceCommand(AGENT_MAIN, args, { env });
}

/** Runs the agent to completion. */
export function runAgentProcess(args: string[], env: NodeJS.ProcessEnv = agentEnv()): Promise<Finished> {
  return startAgentProcess(args, env).finished;
}
