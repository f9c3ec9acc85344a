import { Alert, Anchor, Text } from '@mantine/core';
import { IconLicense } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { useAdminStatus } from '@/features/status/api';
import { licenceLinks } from '@/lib/links';

/**
 * What replaces a knoc wizard or the update screen without a licence (spec §1): that the
 * administrator has no licence, and a link to the licensing site when the operator configured one.
 */
export function NoLicenceNotice() {
  const { t } = useTranslation();
  const { licensing } = licenceLinks(useAdminStatus().data);
  return (
    <Alert
      color="orange"
      title={t('err.youDoNotHaveALicense')}
      icon={<IconLicense aria-hidden />}
      role="alert"
      maw={720}
    >
      <Text size="sm">{t('err.unlicensedDescription')}</Text>
      {licensing === null ? null : (
        <Anchor href={licensing} target="_blank" rel="noreferrer" size="sm">
          {t('knocWizard.licensingSite')}
        </Anchor>
      )}
    </Alert>
  );
}

/** Whether the installation may create and change knocs: a licence is held (false while unknown). */
export function useKnocsLicensed(): { known: boolean; licensed: boolean } {
  const status = useAdminStatus();
  return { known: status.data !== undefined, licensed: status.data?.Licensing.Licensed ?? false };
}
