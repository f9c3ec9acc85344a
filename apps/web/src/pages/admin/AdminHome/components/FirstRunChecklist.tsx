import { Anchor, Group, List, Paper, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleDashed } from '@tabler/icons-react';
import { ADMIN_HOME_STATUS_REFRESH_MS, type AdminStatus, type AgentRecord } from '@postern/protocol';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { routePath } from '../../../../lib/route-paths';
import { agentsApi } from '../../../../features/agents/api';

/**
 * The dialog a step's link opens on its page, when it opens one: the agent step opens the agents
 * page's create dialog, or the install dialog of the agent to connect (named).
 */
export type FirstRunDialog = { type: 'createAgent' } | { type: 'installAgent'; name: string };

/** One step of the first run: whether the live state says it is done, and where it is done. */
export interface FirstRunStep {
  id: 'licence' | 'agent' | 'knoc' | 'user';
  done: boolean;
  to: string;
  /** What the link opens besides its page, said beside it while the step is to do. */
  opens?: FirstRunDialog;
}

/**
 * The agent to connect when none is online: the newest that never connected (ids are UUIDv7, made
 * in creation order, so the greatest is the newest), else the one seen most recently: the likeliest
 * to be set up already, needing only its service started again.
 */
export function agentToConnect(agents: readonly AgentRecord[]): AgentRecord | undefined {
  if (agents.length === 0) return undefined;
  const awaiting = agents.filter((agent) => agent.LastSeen === null);
  if (awaiting.length > 0) return awaiting.reduce((newest, agent) => (agent.ID > newest.ID ? agent : newest));
  const seenAt = (agent: AgentRecord) => Date.parse(agent.LastSeen ?? '');
  return agents.reduce((latest, agent) => (seenAt(agent) > seenAt(latest) ? agent : latest));
}

/**
 * The agent step links straight to the dialog the admin needs: with no agent the create dialog
 * (which goes on to the install dialog), with agents but none online the install dialog of the one
 * to connect. The agents page reads `?new` and `?install` (pages/admin/Agents/Page.tsx). Until the
 * list has loaded, and once an agent is online, the link is the page itself.
 */
function agentStep(agents: readonly AgentRecord[] | undefined): FirstRunStep {
  const page = routePath('agents');
  if (agents === undefined) return { id: 'agent', done: false, to: page };
  if (agents.some((agent) => agent.Online)) return { id: 'agent', done: true, to: page };
  const agent = agentToConnect(agents);
  if (agent === undefined) return { id: 'agent', done: false, to: `${page}?new=1`, opens: { type: 'createAgent' } };
  return {
    id: 'agent',
    done: false,
    to: `${page}?install=${encodeURIComponent(agent.ID)}`,
    opens: { type: 'installAgent', name: agent.Name },
  };
}

/**
 * The four steps from live state: a licence installed, an agent connected now (not merely created:
 * a knoc needs one online to do anything), at least one knoc, at least one user.
 */
export function firstRunSteps(status: AdminStatus, agents: readonly AgentRecord[] | undefined): FirstRunStep[] {
  return [
    { id: 'licence', done: status.Licensing.Licensed, to: `${routePath('settings')}?tab=licence` },
    agentStep(agents),
    { id: 'knoc', done: status.ACLCount > 0, to: routePath('knocsNew') },
    { id: 'user', done: status.UserCount > 0, to: routePath('users') },
  ];
}

/** The words beside a step's link: Done, or To do (naming the dialog the link opens, if it opens one). */
function stepState(t: TFunction, step: FirstRunStep): string {
  if (step.done) return t('adminHome.firstRun.done');
  if (step.opens === undefined) return t('adminHome.firstRun.todo');
  return step.opens.type === 'createAgent'
    ? t('adminHome.firstRun.todoOpens.createAgent')
    : t('adminHome.firstRun.todoOpens.installAgent', { name: step.opens.name });
}

/**
 * The admin home's first-run checklist: licence, agent, knoc, user, each ticked from the admin
 * status (refreshed with the home page) and the agents list (refreshed as often).
 */
export function FirstRunChecklist({ status }: { status: AdminStatus }) {
  const { t } = useTranslation();
  const agents = agentsApi.useList({ refetchInterval: ADMIN_HOME_STATUS_REFRESH_MS });
  const steps = firstRunSteps(status, agents.data);
  const doneCount = steps.filter((step) => step.done).length;

  // Once everything is done the list shrinks to one line rather than vanishing: the admin sees the
  // state was checked (not that the list failed to load), and since the steps stay live, the full list
  // comes back by itself if one undoes (the licence lapses, the last agent goes offline).
  if (doneCount === steps.length) {
    return (
      <Group gap="xs" role="status" aria-label={t('adminHome.firstRun.title')}>
        <ThemeIcon color="green" variant="light" size="sm" radius="xl" aria-hidden>
          <IconCircleCheck size={16} />
        </ThemeIcon>
        <Text size="sm">{t('adminHome.firstRun.allDone')}</Text>
      </Group>
    );
  }

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="first-run-title">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h4" id="first-run-title">
            {t('adminHome.firstRun.title')}
          </Title>
          <Text size="sm" c="dimmed">
            {t('adminHome.firstRun.progress', { done: doneCount, total: steps.length })}
          </Text>
        </Group>
        <Progress value={(doneCount / steps.length) * 100} color="green" size="sm" aria-hidden />
        <List spacing="xs" center listStyleType="none">
          {steps.map((step) => (
            <List.Item
              key={step.id}
              data-step={step.id}
              data-done={step.done}
              icon={
                <ThemeIcon color={step.done ? 'green' : 'gray'} variant="light" size="md" radius="xl" aria-hidden>
                  {step.done ? <IconCircleCheck size={18} /> : <IconCircleDashed size={18} />}
                </ThemeIcon>
              }
            >
              <Group gap="xs" wrap="wrap">
                <Anchor component={Link} to={step.to} td={step.done ? 'line-through' : undefined}>
                  {t(`adminHome.firstRun.steps.${step.id}`)}
                </Anchor>
                <Text size="sm" c={step.done ? 'green' : 'dimmed'}>
                  {stepState(t, step)}
                </Text>
              </Group>
            </List.Item>
          ))}
        </List>
      </Stack>
    </Paper>
  );
}
