import type { BackendType } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { agentsApi } from '@/features/agents/api';
import { chooseAgent, type KnocWizardState } from '../knoc-wizard-state';
import { AgentSection } from '../sections/AgentSection';
import type { LinearStep, StepProps } from '../wizard';

/**
 * The agent step of a wizard whose backend is of `type`: Next waits for an agent. `requireVersion`:
 * agents older than the type's minimum version cannot be chosen (the script wizard).
 */
export function agentStep(type: BackendType, { requireVersion = false } = {}): LinearStep<KnocWizardState> {
  function AgentStep({ state, update }: StepProps<KnocWizardState>) {
    const agents = agentsApi.useList();
    return (
      <QueryState {...agents}>
        {(list) => (
          <AgentSection
            agents={list}
            type={type}
            requireVersion={requireVersion}
            value={state.agentId}
            onChange={(id) => update(chooseAgent(state, list.find((agent) => agent.ID === id) ?? null))}
          />
        )}
      </QueryState>
    );
  }
  return {
    id: 'agent',
    titleKey: 'knocWizard.steps.agent',
    component: AgentStep,
    canAdvance: (state) => state.agentId !== null,
  };
}

/** The chosen agent's record, from the agents list the agent step loaded. */
export function useChosenAgent(agentId: string | null) {
  const agents = agentsApi.useList();
  return agents.data?.find((agent) => agent.ID === agentId) ?? null;
}
