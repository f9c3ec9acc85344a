import { NumberInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import {
  ErrorCodes,
  KIOSK_SESSION_MINUTES_MAX,
  KIOSK_SESSION_MINUTES_MIN,
  SettingsConfigBody,
  type SettingsRecord,
} from '@postern/protocol';
import { useSaveConfig } from '../api';
import { configBody, kioskValues, type KioskValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

const SCHEMA = SettingsConfigBody.pick({ KioskSessionDuration: true });

/** Kiosk session duration: a required whole number of minutes, 5 to 120 ('min 5, max 120'). */
export function KioskSection({ record }: { record: SettingsRecord }) {
  const { t } = useTranslation();
  const saveConfig = useSaveConfig();
  const section = useSectionForm<KioskValues>({
    schema: SCHEMA,
    // An empty field is not a number at all; the spec has one message for every way of being wrong.
    issueKey: () => ErrorCodes.kioskDurationRange,
    saved: kioskValues(record),
    save: async (values) => kioskValues(await saveConfig.mutateAsync(configBody(record, values))),
    successMessage: t('settingsScreen.saved'),
  });
  return (
    <SettingsSection title={t('settingsScreen.kiosk.title')} description={t('settingsScreen.kiosk.description')}>
      <SectionForm section={section}>
        <NumberInput
          label={t('settingsScreen.kiosk.duration')}
          min={KIOSK_SESSION_MINUTES_MIN}
          max={KIOSK_SESSION_MINUTES_MAX}
          // Never clamp silently: a value out of range gets the spec's message instead.
          clampBehavior="none"
          allowDecimal={false}
          allowNegative={false}
          required
          maw={240}
          {...section.form.getInputProps('KioskSessionDuration')}
        />
      </SectionForm>
    </SettingsSection>
  );
}
