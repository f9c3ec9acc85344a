import { Fieldset, Radio, Select, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { AgentRecord } from '@postern/protocol';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { AclConfigFields } from '@/features/backends/components/AclConfigFields';
import { BackendConfigFields } from '@/features/backends/components/BackendConfigFields';
import {
  APPLICATION_TYPES,
  isVendorFixed,
  VENDORS,
  vendorBackendType,
  type ApplicationType,
  type Vendor,
} from '../wizards/application-flow';
import { SCRIPT_VENDORS, scriptVendorOf, scriptVendorWizardPath } from '../wizards/script-vendors';
import { changeApplication, type ApplicationSettingsValues } from './application-settings';

/** Props of {@link ApplicationSettingsSection}. */
export interface ApplicationSettingsSectionProps {
  form: ZodForm<ApplicationSettingsValues>;
  /** The agent chosen for the vendor backend (passive+ and active), if any yet. */
  agent: AgentRecord | null;
}

/**
 * Step 1 of the application wizard: application type (with what it means), vendor (fixed to Palo
 * Alto for passive+), description, URL, and the vendor's connection and rule fields, the same
 * fields the backends screen shows. An active knoc may also name a vendor without a driver of its
 * own: that is a script knoc, so the choice continues in the script wizard with the vendor's script.
 */
export function ApplicationSettingsSection({ form, agent }: ApplicationSettingsSectionProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const values = form.getValues();
  const backendType = vendorBackendType(values.ApplicationType, values.Vendor);
  const vendorName = t(`knocWizardApplication.vendors.${values.Vendor}`);
  const change = (patch: { ApplicationType?: ApplicationType; Vendor?: Vendor }) =>
    form.setValues(changeApplication(form.getValues(), patch));
  const vendorItem = (vendor: string) => ({ value: vendor, label: t(`knocWizardApplication.vendors.${vendor}`) });
  const vendorData =
    values.ApplicationType === 'active'
      ? [
          { group: t('knocWizardApplication.settings.vendorGroups.drivers'), items: VENDORS.map(vendorItem) },
          { group: t('knocWizardApplication.settings.vendorGroups.scripts'), items: SCRIPT_VENDORS.map(vendorItem) },
        ]
      : VENDORS.map(vendorItem);
  const chooseVendor = (value: string | null) => {
    const scriptVendor = scriptVendorOf(value);
    if (scriptVendor !== null) return void navigate(scriptVendorWizardPath(scriptVendor));
    const vendor = VENDORS.find((candidate) => candidate === value);
    if (vendor !== undefined && vendor !== values.Vendor) change({ Vendor: vendor });
  };

  return (
    <Stack gap="md">
      <Radio.Group
        label={t('knocWizardApplication.settings.applicationType')}
        withAsterisk
        value={values.ApplicationType}
        onChange={(value) => change({ ApplicationType: value })}
      >
        <Stack gap="xs" mt="xs">
          {APPLICATION_TYPES.map((type) => (
            <Radio
              key={type}
              value={type}
              label={t(`knocWizardApplication.types.${type}`)}
              description={t(`knocWizardApplication.settings.applicationTypeDescription.${type}`)}
            />
          ))}
        </Stack>
      </Radio.Group>
      <Select
        withAsterisk
        label={t('knocWizardApplication.settings.vendor')}
        description={
          isVendorFixed(values.ApplicationType) ? t('knocWizardApplication.settings.vendorFixed') : undefined
        }
        data={vendorData}
        value={values.Vendor}
        disabled={isVendorFixed(values.ApplicationType)}
        allowDeselect={false}
        onChange={chooseVendor}
      />
      <TextInput
        withAsterisk
        label={t('knocWizardApplication.settings.description')}
        {...form.getInputProps('Description')}
      />
      <TextInput
        label={t('knocWizardApplication.settings.url')}
        description={t('knocWizardApplication.settings.urlDescription')}
        placeholder="https://"
        {...form.getInputProps('URL')}
      />
      {backendType === null ? (
        <Text size="sm" c="dimmed">
          {t('knocWizardApplication.settings.passiveNote')}
        </Text>
      ) : (
        <>
          <Fieldset legend={t('knocWizardApplication.settings.backendLegend', { vendor: vendorName })}>
            <BackendConfigFields type={backendType} form={form} path="Backend" mode="create" agent={agent} />
          </Fieldset>
          <Fieldset legend={t('knocWizardApplication.settings.aclLegend', { vendor: vendorName })}>
            <AclConfigFields type={backendType} form={form} path="Acl" mode="create" agent={agent} />
          </Fieldset>
        </>
      )}
    </Stack>
  );
}
