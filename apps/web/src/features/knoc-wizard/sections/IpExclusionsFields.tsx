import { Group, Radio, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { AddRowButton, RemoveRowButton } from './RowButtons';
import { switchRestriction, type KnocOptionsValues, type RestrictionType } from './knoc-options';

/** The text key of each restriction's name (the review names the chosen one the same way). */
export const RESTRICTION_LABEL_KEY: Record<RestrictionType, string> = {
  none: 'knocWizard.options.restriction.none',
  RFC1918: 'knocWizard.options.restriction.rfc1918',
  allowList: 'knocWizard.options.restriction.allowList',
  denyList: 'knocWizard.options.restriction.denyList',
};

/**
 * The knoc's IP exclusions: none, RFC1918 (the three private ranges, read-only, allowed or denied),
 * or an allow or deny list of Start–End ranges.
 */
export function IpExclusionsFields({ form }: { form: ZodForm<KnocOptionsValues> }) {
  const { t } = useTranslation();
  const values = form.getValues();
  const exclusions = values.IpExclusions;
  const fixed = exclusions.RestrictionType === 'RFC1918';
  const rangesError = form.errors['IpExclusions.Ranges'];

  function choose(type: string) {
    const patch = switchRestriction(form.getValues(), type as RestrictionType);
    form.setValues(patch);
  }

  return (
    <Stack gap="xs">
      <Text fw={500} size="sm" id="ip-exclusions-label">
        {t('knocWizard.options.ipExclusions')}
      </Text>
      <SegmentedControl
        aria-labelledby="ip-exclusions-label"
        value={exclusions.RestrictionType}
        onChange={choose}
        data={Object.entries(RESTRICTION_LABEL_KEY).map(([value, key]) => ({ value, label: t(key) }))}
      />
      {fixed ? (
        <Radio.Group label={t('knocWizard.options.rfcType')} {...form.getInputProps('IpExclusions.RfcType')}>
          <Group mt={4}>
            <Radio value="allow" label={t('knocWizard.options.rfcAllow')} />
            <Radio value="deny" label={t('knocWizard.options.rfcDeny')} />
          </Group>
        </Radio.Group>
      ) : null}
      {exclusions.RestrictionType === 'none' ? null : (
        <Stack gap="xs">
          {exclusions.Ranges.map((range, index) => (
            <Group key={index} align="flex-start" wrap="nowrap">
              <TextInput
                label={t('knocWizard.options.rangeStart', { n: index + 1 })}
                readOnly={fixed}
                {...form.getInputProps(`IpExclusions.Ranges.${index}.Start`)}
              />
              <TextInput
                label={t('knocWizard.options.rangeEnd', { n: index + 1 })}
                readOnly={fixed}
                {...form.getInputProps(`IpExclusions.Ranges.${index}.End`)}
              />
              {fixed ? null : (
                <RemoveRowButton
                  label={t('knocWizard.options.removeRange', { n: index + 1 })}
                  onClick={() => form.removeListItem('IpExclusions.Ranges', index)}
                />
              )}
            </Group>
          ))}
          {fixed ? null : (
            <AddRowButton
              label={t('knocWizard.options.addRange')}
              onClick={() => form.insertListItem('IpExclusions.Ranges', { Start: '', End: '' })}
            />
          )}
          {typeof rangesError === 'string' || typeof rangesError === 'object' ? (
            <Text size="sm" c="red" role="alert">
              {rangesError}
            </Text>
          ) : null}
        </Stack>
      )}
    </Stack>
  );
}
