import { Checkbox, NumberInput, Stack, TextInput } from '@mantine/core';
import { MAX_GRANT_MINUTES_MAX } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { GrantTypeFields } from './GrantTypeFields';
import { IconPicker } from './IconPicker';
import { IpExclusionsFields } from './IpExclusionsFields';
import type { KnocOptionsValues } from './knoc-options';

/** Props of {@link KnocOptionsSection}: the options form, from a wizard step or an update tab. */
export interface KnocOptionsSectionProps {
  form: ZodForm<KnocOptionsValues>;
  /** Whether Description and URL are asked for here (the application wizard asks on its settings step). */
  withIdentity?: boolean;
}

const OPTION_CHECKBOXES = [
  ['ClickToGrant', 'knocWizard.options.clickToGrant'],
  ['HideFromUsers', 'knocWizard.options.hideFromUsers'],
  ['AutoBrowseUsers', 'knocWizard.options.autoBrowseUsers'],
  ['CGNATOpen', 'knocWizard.options.cgnatOpen'],
] as const;

/** The Knoc options (spec §3): description, address, category, icon, options, exclusions, grant type. */
export function KnocOptionsSection({ form, withIdentity = true }: KnocOptionsSectionProps) {
  const { t } = useTranslation();
  return (
    <Stack gap="md">
      {withIdentity ? (
        <>
          <TextInput withAsterisk label={t('knocWizard.options.description')} {...form.getInputProps('Description')} />
          <TextInput label={t('knocWizard.options.url')} placeholder="https://" {...form.getInputProps('URL')} />
        </>
      ) : null}
      <TextInput label={t('knocWizard.options.category')} {...form.getInputProps('Category')} />
      <IconPicker value={form.getValues().Icon} onChange={(icon) => form.setFieldValue('Icon', icon)} />
      {OPTION_CHECKBOXES.map(([field, labelKey]) => (
        <Checkbox key={field} label={t(labelKey)} {...form.getInputProps(field, { type: 'checkbox' })} />
      ))}
      <NumberInput
        label={t('knocWizard.options.maximumGrantDuration')}
        description={t('knocWizard.options.maximumGrantDurationHelp')}
        min={0}
        max={MAX_GRANT_MINUTES_MAX}
        allowDecimal={false}
        allowNegative={false}
        clampBehavior="none"
        {...form.getInputProps('MaximumGrantMinutes')}
      />
      <IpExclusionsFields form={form} />
      <GrantTypeFields form={form} />
    </Stack>
  );
}
