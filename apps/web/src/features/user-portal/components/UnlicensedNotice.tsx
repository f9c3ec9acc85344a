import { Alert } from '@mantine/core';
import { IconLicense } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** Props of {@link UnlicensedNotice}. */
export interface UnlicensedNoticeProps {
  /** The installation holds a valid licence (only this user is beyond its limit). */
  systemLicensed: boolean;
}

/** Which texts say why access is blocked. */
export function unlicensedKeys(systemLicensed: boolean) {
  return systemLicensed
    ? ({ title: 'home.unlicensed.userTitle', text: 'home.unlicensed.userText' } as const)
    : ({ title: 'home.unlicensed.systemTitle', text: 'home.unlicensed.systemText' } as const);
}

/**
 * The dashboard's page for an unlicensed user (spec §2, §6): 'User Not Licensed' and to contact the
 * administrator, or that the installation has no licence; ACLs are not listed.
 */
export function UnlicensedNotice({ systemLicensed }: UnlicensedNoticeProps) {
  const { t } = useTranslation();
  const keys = unlicensedKeys(systemLicensed);
  return (
    <Alert color="orange" variant="light" title={t(keys.title)} icon={<IconLicense aria-hidden />} role="alert">
      {t(keys.text)}
    </Alert>
  );
}
