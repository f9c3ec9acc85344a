import { useEffect } from 'react';
import { Stack } from '@mantine/core';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { agentsApi } from '@/features/agents/api';
import { chooseAgent, chooseType, preferredType, type KnocWizardState } from '../knoc-wizard-state';
import { AgentSection } from '../sections/AgentSection';
import { BackendTypeChoice } from '../sections/BackendTypeChoice';
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

/**
 * The agent step of a wizard that offers several backend types (the Linux wizard: ipset or
 * nftables): the type first, then an agent that can drive it. Next waits for an agent.
 */
export function typeAndAgentStep(types: readonly BackendType[]): LinearStep<KnocWizardState> {
  function TypeAndAgent({ state, update, agents }: StepProps<KnocWizardState> & { agents: readonly AgentRecord[] }) {
    const type = state.settings.Type;
    const preferred = preferredType(types, agents, type);
    useEffect(() => {
      if (state.agentId === null && preferred !== type) update(chooseType(state, preferred, agents));
    }, [state, preferred, type, agents, update]);
    return (
      <Stack gap="md">
        <BackendTypeChoice
          types={types}
          agents={agents}
          value={type}
          onChange={(next) => update(chooseType(state, next, agents))}
        />
        <AgentSection
          agents={agents}
          type={type}
          value={state.agentId}
          onChange={(id) => update(chooseAgent(state, agents.find((agent) => agent.ID === id) ?? null))}
        />
      </Stack>
    );
  }
  function TypeAndAgentStep(props: StepProps<KnocWizardState>) {
    const agents = agentsApi.useList();
    return <QueryState {...agents}>{(list) => <TypeAndAgent {...props} agents={list} />}</QueryState>;
  }
  return {
    id: 'agent',
    titleKey: 'knocWizard.steps.agent',
    component: TypeAndAgentStep,
    canAdvance: (state) => state.agentId !== null,
  };
}

/** The chosen agent's record, from the agents list the agent step loaded. */
export function useChosenAgent(agentId: string | null) {
  const agents = agentsApi.useList();
  return agents.data?.find((agent) => agent.ID === agentId) ?? null;
}
