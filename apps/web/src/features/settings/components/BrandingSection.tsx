import { Checkbox, Group, Radio, SimpleGrid, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { ACCENTS, SettingsCustomizeBody, type SettingsRecord } from '@postern/protocol';
import { useSaveCustomisation } from '../api';
import { brandingValues, customiseBody, type BrandingValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { LogoField } from './LogoField';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

// The logos are checked when picked (type and size); the server decodes them again on save.
const SCHEMA = SettingsCustomizeBody.pick({ Accent: true, HighAccessibility: true });

/** Branding: accent colour, high accessibility mode, and the dark- and light-mode logos. */
export function BrandingSection({ record }: { record: SettingsRecord }) {
  const { t } = useTranslation();
  const saveCustomisation = useSaveCustomisation();
  const section = useSectionForm<BrandingValues>({
    schema: SCHEMA,
    saved: brandingValues(record),
    save: async (values) => brandingValues(await saveCustomisation.mutateAsync(customiseBody(record, values))),
    successMessage: t('settingsScreen.saved'),
  });
  const { form } = section;
  const logoProps = (field: 'Logo' | 'LightModeLogo') => ({
    value: form.values[field],
    onChange: (value: string) => form.setFieldValue(field, value),
    error: typeof form.errors[field] === 'string' ? form.errors[field] : null,
    onError: (error: string | null) =>
      error === null ? form.clearFieldError(field) : form.setFieldError(field, error),
  });

  return (
    <SettingsSection title={t('settingsScreen.branding.title')} description={t('settingsScreen.branding.description')}>
      <SectionForm section={section}>
        <Stack gap="md">
          <Radio.Group label={t('settingsScreen.branding.accent')} {...form.getInputProps('Accent')}>
            <Group gap="md" mt="xs">
              {ACCENTS.map((accent) => (
                <Radio key={accent} value={accent} label={t(`settingsScreen.branding.accents.${accent}`)} />
              ))}
            </Group>
          </Radio.Group>
          <Checkbox
            label={t('settingsScreen.branding.highAccessibility')}
            description={t('settingsScreen.branding.highAccessibilityHelp')}
            {...form.getInputProps('HighAccessibility', { type: 'checkbox' })}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <LogoField label={t('settingsScreen.branding.logo')} scheme="dark" {...logoProps('Logo')} />
            <LogoField
              label={t('settingsScreen.branding.lightModeLogo')}
              scheme="light"
              {...logoProps('LightModeLogo')}
            />
          </SimpleGrid>
        </Stack>
      </SectionForm>
    </SettingsSection>
  );
}
