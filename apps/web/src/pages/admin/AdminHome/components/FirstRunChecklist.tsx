import { Anchor, Group, List, Paper, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleCheck, IconCircleDashed } from '@tabler/icons-react';
import { ADMIN_HOME_STATUS_REFRESH_MS, type AdminStatus, type AgentRecord } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { routePath } from '../../../../lib/route-paths';
import { agentsApi } from '../../../../features/agents/api';

/** One step of the first run: whether the live state says it is done, and where it is done. */
export interface FirstRunStep {
  id: 'licence' | 'agent' | 'knoc' | 'user';
  done: boolean;
  to: string;
}

/**
 * The four steps from live state: a licence installed, an agent connected now (not merely created:
 * a knoc needs one online to do anything), at least one knoc, at least one user.
 */
export function firstRunSteps(status: AdminStatus, agents: readonly AgentRecord[] | undefined): FirstRunStep[] {
  return [
    { id: 'licence', done: status.Licensing.Licensed, to: `${routePath('settings')}?tab=licence` },
    { id: 'agent', done: (agents ?? []).some((agent) => agent.Online), to: routePath('agents') },
    { id: 'knoc', done: status.ACLCount > 0, to: routePath('knocsNew') },
    { id: 'user', done: status.UserCount > 0, to: routePath('users') },
  ];
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
                  {t(step.done ? 'adminHome.firstRun.done' : 'adminHome.firstRun.todo')}
                </Text>
              </Group>
            </List.Item>
          ))}
        </List>
      </Stack>
    </Paper>
  );
}
