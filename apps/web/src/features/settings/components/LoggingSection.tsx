import { Checkbox, Stack, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SettingsConfigBody, type SettingsRecord } from '@postern/protocol';
import { useSaveConfig } from '../api';
import { configBody, loggingValues, type LoggingValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

const SCHEMA = SettingsConfigBody.pick({ DebugMode: true, GELFListenerURL: true });

/** Logging: DebugMode (labelled as a reminder to turn it off) and the GELF listener (udp, tcp or tls). */
export function LoggingSection({ record }: { record: SettingsRecord }) {
  const { t } = useTranslation();
  const saveConfig = useSaveConfig();
  const section = useSectionForm<LoggingValues>({
    schema: SCHEMA,
    saved: loggingValues(record),
    save: async (values) => loggingValues(await saveConfig.mutateAsync(configBody(record, values))),
    successMessage: t('settingsScreen.saved'),
  });
  const { form } = section;
  return (
    <SettingsSection title={t('settingsScreen.logging.title')} description={t('settingsScreen.logging.description')}>
      <SectionForm section={section}>
        <Stack gap="sm">
          <Checkbox
            label={t('settingsScreen.logging.debugMode')}
            description={t('settingsScreen.logging.debugModeHelp')}
            {...form.getInputProps('DebugMode', { type: 'checkbox' })}
          />
          <TextInput
            label={t('settingsScreen.logging.gelfUrl')}
            description={t('settingsScreen.logging.gelfUrlHelp')}
            placeholder="udp://graylog.example.com:12201"
            autoComplete="off"
            {...form.getInputProps('GELFListenerURL')}
          />
        </Stack>
      </SectionForm>
    </SettingsSection>
  );
}
