import type { ReactNode } from 'react';
import { Alert, Card, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { AgentRecord, GroupRecord, UserRecord } from '@postern/protocol';
import { backendTypeLabelKey } from '@/features/backends/backend-types';
import { useTranslation } from 'react-i18next';
import type { EnvVarRow } from './env-vars';
import { RESTRICTION_LABEL_KEY } from './IpExclusionsFields';
import { KnocPreviewCard } from './KnocPreviewCard';
import { grantSeconds, type KnocOptionsValues } from './knoc-options';
import type { MembersValues } from './members';
import { agentWarnings, chosenMembers } from './review';
import { configReviewRows, type ReviewValue } from './review-config';
import { SecretValue } from './SecretValue';
import type { SettingsValues } from './settings';

/** Props of {@link ReviewSection}. */
export interface ReviewSectionProps {
  settings: SettingsValues;
  options: KnocOptionsValues;
  /** A script's variables; undefined for other types. */
  envVars?: readonly EnvVarRow[];
  /** The agent; null when the knoc has none (a passive allowlist), and the agent card is left out. */
  agent: AgentRecord | null;
  users: readonly UserRecord[];
  groups: readonly GroupRecord[];
  members: MembersValues;
  /** More summaries of a wizard's own (the application wizard's API key), after the options. */
  children?: ReactNode;
}

/** One summary: a titled card of label and value rows. */
export function SummaryCard({
  title,
  rows,
  children,
}: {
  title: string;
  rows: [string, ReactNode][];
  children?: ReactNode;
}) {
  return (
    <Card withBorder radius="md" padding="md" component="section" aria-label={title}>
      <Title order={3} size="h5" mb="xs">
        {title}
      </Title>
      <Table variant="vertical" withRowBorders={false}>
        <Table.Tbody>
          {/* A label may repeat (PAN-OS has MapUser on the connection and on the rule). */}
          {rows.map(([label, value], index) => (
            <Table.Tr key={`${index}:${label}`}>
              <Table.Th w={240} scope="row">
                {label}
              </Table.Th>
              <Table.Td>{value}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {children}
    </Card>
  );
}

/** A config value as the review shows it; a secret is masked until the admin asks to see it. */
function ConfigValue({ value, label }: { value: ReviewValue; label: string }) {
  const { t } = useTranslation();
  switch (value.kind) {
    case 'text':
      return value.text;
    case 'key':
      return t(value.key, value.values);
    case 'secret':
      return <SecretValue value={value.text} label={label} />;
  }
}

/**
 * The review (spec §2): settings in words (secrets displayed on request), knoc options, variables,
 * the agent with its warnings, users and groups with placeholders when none, and the knoc's preview
 * card.
 */
export function ReviewSection({
  settings,
  options,
  envVars,
  agent,
  users,
  groups,
  members,
  children,
}: ReviewSectionProps) {
  const { t } = useTranslation();
  const yesNo = (value: boolean) => t(value ? 'knocWizard.review.yes' : 'knocWizard.review.no');
  const none = t('knocWizard.review.none');
  const seconds = grantSeconds(options.MaximumGrantMinutes);
  const exclusions = options.IpExclusions;
  const chosen = chosenMembers(members, users, groups);
  const list = (names: string[], placeholder: string) => (names.length === 0 ? placeholder : names.join(', '));
  const configRows = configReviewRows(settings.Type, settings.Backend, settings.Acl).map(
    ({ labelKey, value }): [string, ReactNode] => [t(labelKey), <ConfigValue value={value} label={t(labelKey)} />],
  );

  return (
    <Stack gap="md">
      <SummaryCard
        title={t('knocWizard.review.settings')}
        rows={[[t('knocWizard.review.type'), t(backendTypeLabelKey(settings.Type))], ...configRows]}
      />
      <SummaryCard
        title={t('knocWizard.review.options')}
        rows={[
          [t('knocWizard.options.description'), options.Description],
          [t('knocWizard.options.url'), options.URL === '' ? none : options.URL],
          [t('knocWizard.options.category'), options.Category],
          [t('knocWizard.options.icon'), options.Icon],
          [t('knocWizard.options.clickToGrant'), yesNo(options.ClickToGrant)],
          [t('knocWizard.options.hideFromUsers'), yesNo(options.HideFromUsers)],
          [t('knocWizard.options.autoBrowseUsers'), yesNo(options.AutoBrowseUsers)],
          [t('knocWizard.options.cgnatOpen'), yesNo(options.CGNATOpen)],
          [
            t('knocWizard.options.maximumGrantDuration'),
            seconds === 0 ? none : t('knocWizard.review.minutes', { count: seconds / 60 }),
          ],
          [
            t('knocWizard.options.ipExclusions'),
            exclusions.RestrictionType === 'none'
              ? none
              : [
                  exclusions.RestrictionType === 'RFC1918'
                    ? `${t(RESTRICTION_LABEL_KEY.RFC1918)} (${t(exclusions.RfcType === 'allow' ? 'knocWizard.options.rfcAllow' : 'knocWizard.options.rfcDeny')})`
                    : t(RESTRICTION_LABEL_KEY[exclusions.RestrictionType]),
                  ...exclusions.Ranges.filter((range) => range.Start !== '').map(
                    (range) => `${range.Start} – ${range.End}`,
                  ),
                ].join(', '),
          ],
          [
            t('knocWizard.options.grantType'),
            options.GrantType.Type === 'userIp'
              ? t('knocWizard.options.grantUserIp')
              : `${t('knocWizard.options.grantSpecifiedIps')}: ${options.GrantType.Ips.map((entry) => entry.Ip).join(', ')}`,
          ],
        ]}
      />
      {envVars === undefined ? null : (
        <SummaryCard
          title={t('knocWizard.review.envVars')}
          rows={
            envVars.length === 0
              ? [[t('knocWizard.review.envVars'), none]]
              : // A sensitive value was typed hidden and is never shown again, not even here.
                envVars.map((row) => [row.Name, row.Sensitive ? t('knocWizard.review.sensitiveValue') : row.Value])
          }
        />
      )}
      {children}
      {agent === null ? null : (
        <SummaryCard
          title={t('knocWizard.review.agent')}
          rows={[
            [t('knocWizard.review.agentName'), agent.Name],
            [t('knocWizard.review.agentVersion'), agent.Version ?? t('knocWizard.review.unknownVersion')],
          ]}
        >
          {agentWarnings(settings, agent).map((warning) => (
            <Alert
              key={warning.key + JSON.stringify(warning.values)}
              color="yellow"
              mt="xs"
              icon={<IconAlertTriangle size={18} aria-hidden />}
            >
              {/* The type by its name, as the Settings card's Type row gives it. */}
              {t(warning.key, { ...warning.values, type: t(backendTypeLabelKey(settings.Type)) })}
            </Alert>
          ))}
        </SummaryCard>
      )}
      <SummaryCard
        title={t('knocWizard.review.members')}
        rows={[
          [t('knocWizard.members.users'), list(chosen.users, t('knocWizard.review.noUsers'))],
          [t('knocWizard.members.samlGroups'), list(chosen.samlGroups, t('knocWizard.review.noSamlGroups'))],
          [t('knocWizard.members.localGroups'), list(chosen.localGroups, t('knocWizard.review.noLocalGroups'))],
        ]}
      />
      <Text fw={600}>{t('knocWizard.review.preview')}</Text>
      <KnocPreviewCard options={options} />
    </Stack>
  );
}
