import { Switch } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { SettingsCustomizeBody, type SettingsRecord } from '@postern/protocol';
import { useSaveCustomisation } from '../api';
import { customiseBody, uiValues, type UiValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

const SCHEMA = SettingsCustomizeBody.pick({ NewUserDashboard: true });

/** UI: whether users get the new dashboard. */
export function UiSection({ record }: { record: SettingsRecord }) {
  const { t } = useTranslation();
  const saveCustomisation = useSaveCustomisation();
  const section = useSectionForm<UiValues>({
    schema: SCHEMA,
    saved: uiValues(record),
    save: async (values) => uiValues(await saveCustomisation.mutateAsync(customiseBody(record, values))),
    successMessage: t('settingsScreen.saved'),
  });
  return (
    <SettingsSection title={t('settingsScreen.ui.title')}>
      <SectionForm section={section}>
        <Switch
          label={t('settingsScreen.ui.newUserDashboard')}
          description={t('settingsScreen.ui.newUserDashboardHelp')}
          {...section.form.getInputProps('NewUserDashboard', { type: 'checkbox' })}
        />
      </SectionForm>
    </SettingsSection>
  );
}
