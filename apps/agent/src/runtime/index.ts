export {
  startAgentRuntime,
  type AgentRuntime,
  type AgentRuntimeOptions,
  type HeldEntrySnapshot,
  type RuntimeSnapshot,
} from './agent-runtime.js';
export { systemClock, type Clock, type ClockTimer } from './clock.js';
export { STATE_FORMAT_VERSION, type StateFileContent } from './state-file.js';
