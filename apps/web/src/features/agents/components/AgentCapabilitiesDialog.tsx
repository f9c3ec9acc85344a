import { Anchor, Badge, Button, Group, List, Modal, Paper, Stack, Text, ThemeIcon } from '@mantine/core';
import { IconCircleCheck, IconCircleX, IconExternalLink } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { BACKEND_TYPES, type AgentRecord, type BackendType } from '@postern/protocol';
import { backendTypeLabelKey } from '@/features/backends/backend-types';
import { capabilityViews, operatingSystem, type CapabilityView, type NftablesSetView } from '../agent-capabilities';
import { CAPABILITY_DOCS_URL } from '@/lib/links';

const isBackendType = (type: string): type is BackendType => (BACKEND_TYPES as readonly string[]).includes(type);

/** One nftables set: its name, where it lives, its address type and whether entries can expire. */
function NftablesSetItem({ set }: { set: NftablesSetView }) {
  const { t } = useTranslation();
  return (
    <List.Item>
      {set.name}{' '}
      <Badge size="xs" variant="outline" tt="none">
        {t('agentsScreen.capabilities.nftables.where', { family: set.family, table: set.table })}
      </Badge>{' '}
      <Badge size="xs" variant="outline" tt="none">
        {set.type}
      </Badge>{' '}
      <Badge size="xs" variant="light" color={set.timeout ? 'green' : 'red'} tt="none">
        {set.timeout
          ? t('agentsScreen.capabilities.nftables.timeout')
          : t('agentsScreen.capabilities.nftables.noTimeout')}
      </Badge>
    </List.Item>
  );
}

/** The lines under a capability's title: its sets, socket, state or types. */
function CapabilityDetail({ view }: { view: CapabilityView }) {
  const { t } = useTranslation();
  // A type by the name the backend and knoc screens give it; one this console does not know (an
  // agent newer than the server) by the code the agent reported.
  const typeName = (type: string) => (isBackendType(type) ? t(backendTypeLabelKey(type)) : type);
  switch (view.id) {
    case 'ipset':
      return (
        <Stack gap={4}>
          {view.reason === null ? null : (
            <Text size="sm" c="red">
              {t(view.reason)}
            </Text>
          )}
          {view.sets.length === 0 ? (
            <Text size="sm">{t('agentsScreen.capabilities.ipset.noSets')}</Text>
          ) : (
            <List size="sm" aria-label={t('agentsScreen.capabilities.ipset.sets')}>
              {view.sets.map((set) => (
                <List.Item key={`${set.name}/${set.family}`}>
                  {set.name}{' '}
                  <Badge size="xs" variant="outline">
                    {set.family}
                  </Badge>
                </List.Item>
              ))}
            </List>
          )}
        </Stack>
      );
    case 'nftables':
      if (!view.reported) return <Text size="sm">{t('agentsScreen.capabilities.nftables.notReported')}</Text>;
      return (
        <Stack gap={4}>
          {view.reason === null ? null : (
            <Text size="sm" c="red">
              {t(view.reason)}
            </Text>
          )}
          <Text size="sm">
            {t(
              view.command
                ? 'agentsScreen.capabilities.nftables.command'
                : 'agentsScreen.capabilities.nftables.noCommand',
            )}
          </Text>
          <Text size="sm">
            {t(view.sudo ? 'agentsScreen.capabilities.nftables.sudo' : 'agentsScreen.capabilities.nftables.noSudo')}
          </Text>
          {view.sets.length === 0 ? (
            <Text size="sm">{t('agentsScreen.capabilities.nftables.noSets')}</Text>
          ) : (
            <List size="sm" aria-label={t('agentsScreen.capabilities.nftables.sets')}>
              {view.sets.map((set) => (
                <NftablesSetItem key={`${set.family}/${set.table}/${set.name}`} set={set} />
              ))}
            </List>
          )}
        </Stack>
      );
    case 'script':
      return (
        <Text size="sm">
          {view.available
            ? t('agentsScreen.capabilities.script.enabled')
            : t('agentsScreen.capabilities.script.disabled')}
        </Text>
      );
    case 'haproxy':
      return (
        <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
          {view.socket === null
            ? t('agentsScreen.capabilities.haproxy.noSocket')
            : t('agentsScreen.capabilities.haproxy.socket', { socket: view.socket })}
        </Text>
      );
    case 'other':
      return (
        <Text size="sm">
          {view.types.length === 0
            ? t('agentsScreen.capabilities.other.none')
            : t('agentsScreen.capabilities.other.types', { types: view.types.map(typeName).join(', ') })}
        </Text>
      );
  }
}

/** One capability: the available/unavailable icon (with its name for screen readers), title, details, docs. */
function CapabilityCard({ view }: { view: CapabilityView }) {
  const { t } = useTranslation();
  const title = t(`agentsScreen.capabilities.${view.id}.title`);
  const state = view.available ? t('agentsScreen.capabilities.available') : t('agentsScreen.capabilities.unavailable');
  return (
    <Paper withBorder p="sm" component="section" aria-label={title}>
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="sm">
        <Group gap="sm" align="flex-start" wrap="nowrap" style={{ minWidth: 0 }}>
          <ThemeIcon variant="light" color={view.available ? 'green' : 'red'} radius="xl" role="img" aria-label={state}>
            {view.available ? <IconCircleCheck size={18} aria-hidden /> : <IconCircleX size={18} aria-hidden />}
          </ThemeIcon>
          <Stack gap={4} style={{ minWidth: 0 }}>
            <Text fw={600}>{title}</Text>
            <CapabilityDetail view={view} />
          </Stack>
        </Group>
        <Anchor
          href={CAPABILITY_DOCS_URL}
          target="_blank"
          rel="noopener noreferrer"
          size="sm"
          aria-label={t('agentsScreen.capabilities.documentation', { capability: title })}
        >
          <IconExternalLink size={16} aria-hidden />
        </Anchor>
      </Group>
    </Paper>
  );
}

/** Props of {@link AgentCapabilitiesDialog}. */
export interface AgentCapabilitiesDialogProps {
  /** The agent to describe; null keeps the dialog closed. */
  agent: AgentRecord | null;
  onClose: () => void;
}

/** What an agent reported it can do: IPSet, nftables, Custom Script, HAProxy and Other (spec: capabilities dialog). */
export function AgentCapabilitiesDialog({ agent, onClose }: AgentCapabilitiesDialogProps) {
  const { t } = useTranslation();
  const capabilities = agent?.Capabilities ?? null;
  return (
    <Modal
      opened={agent !== null}
      onClose={onClose}
      title={t('agentsScreen.capabilities.title', { name: agent?.Name ?? '' })}
      centered
      size="lg"
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      <Stack>
        <Text size="sm">
          {t('agentsScreen.capabilities.operatingSystem')}:{' '}
          {operatingSystem(capabilities) ?? t('agentsScreen.capabilities.notReported')}
        </Text>
        {capabilities === null
          ? null
          : capabilityViews(capabilities).map((view) => <CapabilityCard key={view.id} view={view} />)}
        <Group justify="flex-end">
          <Button onClick={onClose}>{t('dialog.close')}</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
