import { Checkbox } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Props of {@link KioskCheckbox}. */
export interface KioskCheckboxProps {
  checked: boolean;
  onChange: (checked: boolean) => void;
}

/** "This is a public computer": asks for a short kiosk session, for local sign-in and SSO alike. */
export function KioskCheckbox({ checked, onChange }: KioskCheckboxProps) {
  const { t } = useTranslation();
  return (
    <Checkbox
      label={t('login.kiosk')}
      description={t('login.kioskHint')}
      checked={checked}
      onChange={(event) => onChange(event.currentTarget.checked)}
    />
  );
}
