import { useId, type ReactNode } from 'react';
import { Badge, Code, Group, Loader, Paper, SimpleGrid, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconCircleCheck, IconPlugConnectedX } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { AgentCapabilities, AgentRecord, BackendType } from '@postern/protocol';
import { backendTypeLabelKey } from '@/features/backends/backend-types';
import { operatingSystem } from '../agent-capabilities';
import { enrolmentState } from '../enrolment-state';

/** One labelled fact of the connected agent. */
function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2} miw={0}>
      <Text size="xs" c="dimmed" fw={500}>
        {label}
      </Text>
      <div style={{ fontSize: 'var(--mantine-font-size-sm)', overflowWrap: 'anywhere' }}>{children}</div>
    </Stack>
  );
}

/** What the agent found on its host: OS, backend types it drives, ipsets it may change, scripts. */
function FoundOnHost({ capabilities }: { capabilities: AgentCapabilities }) {
  const { t } = useTranslation();
  const types = [...new Set(capabilities.backend_types)].map((type) =>
    // A type this console does not know yet is still named, by its code.
    t(backendTypeLabelKey(type as BackendType), { defaultValue: type }),
  );
  return (
    <>
      <Fact label={t('agentsScreen.capabilities.operatingSystem')}>
        {operatingSystem(capabilities) ?? t('agentsScreen.capabilities.notReported')}
      </Fact>
      <Fact label={t('agentsScreen.token.live.backendTypes')}>
        {types.length === 0 ? t('agentsScreen.token.live.none') : types.join(', ')}
      </Fact>
      <Fact label={t('agentsScreen.token.live.ipsets')}>
        {capabilities.ipset.ipsets.length === 0 ? (
          t('agentsScreen.capabilities.ipset.noSets')
        ) : (
          <Group gap={4}>
            {capabilities.ipset.ipsets.map((set) => (
              <Badge key={`${set.name}/${set.address_family}`} variant="outline" tt="none">
                {set.name} ({set.address_family})
              </Badge>
            ))}
          </Group>
        )}
      </Fact>
      {capabilities.nftables === undefined ? null : (
        <Fact label={t('agentsScreen.token.live.nftablesSets')}>
          {capabilities.nftables.sets.length === 0 ? (
            t('agentsScreen.capabilities.nftables.noSets')
          ) : (
            <Group gap={4}>
              {capabilities.nftables.sets.map((set) => (
                <Badge key={`${set.family}/${set.table}/${set.name}`} variant="outline" tt="none">
                  {set.name} ({set.family} {set.table})
                </Badge>
              ))}
            </Group>
          )}
        </Fact>
      )}
      <Fact label={t('agentsScreen.token.live.scripts')}>
        {capabilities.script.enabled
          ? t('agentsScreen.capabilities.script.enabled')
          : t('agentsScreen.capabilities.script.disabled')}
      </Fact>
    </>
  );
}

/**
 * The install dialog's live part: while the admin runs the command, it waits for the agent; once
 * the agent has registered its key and connected, it says so with the key's fingerprint (to compare
 * with the one the agent logs) and what the agent found on its host. `agent` is the polled record.
 */
export function AgentEnrolment({ agent }: { agent: AgentRecord }) {
  const { t } = useTranslation();
  const headingId = useId();
  const state = enrolmentState(agent);
  const headline =
    state === 'waiting'
      ? t('agentsScreen.token.live.waiting')
      : state === 'connected'
        ? t('agentsScreen.token.live.connected', { name: agent.Name })
        : t('agentsScreen.token.live.offline', { name: agent.Name });
  return (
    <Paper withBorder p="sm" component="section" aria-labelledby={headingId}>
      <Stack gap="sm">
        <Group gap="sm" wrap="nowrap" align="flex-start">
          {state === 'waiting' ? (
            <Loader size="sm" aria-hidden />
          ) : (
            <ThemeIcon variant="light" color={state === 'connected' ? 'green' : 'gray'} radius="xl" aria-hidden>
              {state === 'connected' ? <IconCircleCheck size={18} /> : <IconPlugConnectedX size={18} />}
            </ThemeIcon>
          )}
          <Stack gap={2} miw={0}>
            <Text fw={600} id={headingId} role="status">
              {headline}
            </Text>
            <Text size="sm" c="dimmed">
              {state === 'waiting'
                ? t('agentsScreen.token.live.waitingHint')
                : state === 'offline'
                  ? t('agentsScreen.token.live.offlineHint')
                  : t('agentsScreen.token.live.connectedHint')}
            </Text>
          </Stack>
        </Group>
        {state === 'waiting' ? null : (
          <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm" verticalSpacing="xs">
            <Fact label={t('agentsScreen.token.live.fingerprint')}>
              <Code>{agent.KeyFingerprint ?? t('agentsScreen.capabilities.notReported')}</Code>
            </Fact>
            <Fact label={t('agentsScreen.token.live.version')}>
              {agent.Version ?? t('agentsScreen.capabilities.notReported')}
            </Fact>
            <Fact label={t('agentsScreen.token.live.address')}>
              {agent.ExternalIP ?? t('agentsScreen.capabilities.notReported')}
            </Fact>
            {agent.Capabilities === null ? (
              <Fact label={t('agentsScreen.column.capabilities')}>{t('agentsScreen.capabilities.notReported')}</Fact>
            ) : (
              <FoundOnHost capabilities={agent.Capabilities} />
            )}
          </SimpleGrid>
        )}
      </Stack>
    </Paper>
  );
}
