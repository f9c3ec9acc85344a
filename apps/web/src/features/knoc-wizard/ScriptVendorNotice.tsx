import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { scriptVendorCommand, type ScriptVendor } from './wizards/script-vendors';

/** Above the script wizard started for a vendor without a driver: which script runs, and where. */
export function ScriptVendorNotice({ vendor }: { vendor: ScriptVendor }) {
  const { t } = useTranslation();
  const name = t(`knocWizardApplication.vendors.${vendor}`);
  return (
    <Alert color="blue" title={t('knocWizardApplication.scriptVendor.title', { vendor: name })} mb="md">
      {t('knocWizardApplication.scriptVendor.body', { vendor: name, command: scriptVendorCommand(vendor) })}
    </Alert>
  );
}
