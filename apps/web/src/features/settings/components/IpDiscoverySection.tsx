import { Checkbox, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SettingsConfigBody, type SettingsRecord } from '@postern/protocol';
import { useSaveConfig } from '../api';
import { configBody, ipDiscoveryValues, type IpDiscoveryValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

const SCHEMA = SettingsConfigBody.pick({
  DiscoverIP: true,
  DiscoverIPURL: true,
  DiscoverIPv4URL: true,
  DiscoverIPv6URL: true,
  DiscoverIPTrustUnattested: true,
});

/**
 * IP discovery: DiscoverIP, DiscoverIPURL (http or https), the IPv4-only and IPv6-only URLs of dual
 * stack, and the risky trust in unattested addresses.
 */
export function IpDiscoverySection({ record }: { record: SettingsRecord }) {
  const { t } = useTranslation();
  const saveConfig = useSaveConfig();
  const section = useSectionForm<IpDiscoveryValues>({
    schema: SCHEMA,
    saved: ipDiscoveryValues(record),
    save: async (values) => ipDiscoveryValues(await saveConfig.mutateAsync(configBody(record, values))),
    successMessage: t('settingsScreen.saved'),
  });
  const { form } = section;
  const trusting = form.values.DiscoverIPTrustUnattested;
  return (
    <SettingsSection
      title={t('settingsScreen.ipDiscovery.title')}
      description={t('settingsScreen.ipDiscovery.description')}
    >
      <SectionForm section={section}>
        <Stack gap="sm">
          <Checkbox
            label={t('settingsScreen.ipDiscovery.discoverIp')}
            description={t('settingsScreen.ipDiscovery.discoverIpHelp')}
            {...form.getInputProps('DiscoverIP', { type: 'checkbox' })}
          />
          <TextInput
            label={t('settingsScreen.ipDiscovery.url')}
            description={t('settingsScreen.ipDiscovery.urlHelp')}
            placeholder="https://ip.example.com"
            inputMode="url"
            autoComplete="off"
            {...form.getInputProps('DiscoverIPURL')}
          />
          <TextInput
            label={t('settingsScreen.ipDiscovery.v4Url')}
            description={t('settingsScreen.ipDiscovery.v4UrlHelp')}
            placeholder="http://v4.portal.example.com"
            inputMode="url"
            autoComplete="off"
            {...form.getInputProps('DiscoverIPv4URL')}
          />
          <TextInput
            label={t('settingsScreen.ipDiscovery.v6Url')}
            description={t('settingsScreen.ipDiscovery.v6UrlHelp')}
            placeholder="http://v6.portal.example.com"
            inputMode="url"
            autoComplete="off"
            {...form.getInputProps('DiscoverIPv6URL')}
          />
          <Checkbox
            label={t('adminSettings.discoverIpTrustUnattested.label')}
            description={t('adminSettings.discoverIpTrustUnattested.risk')}
            color={trusting ? 'orange' : undefined}
            styles={{ description: trusting ? { color: 'var(--mantine-color-orange-text)' } : undefined }}
            {...form.getInputProps('DiscoverIPTrustUnattested', { type: 'checkbox' })}
          />
        </Stack>
      </SectionForm>
    </SettingsSection>
  );
}
