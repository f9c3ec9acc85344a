import { useDisclosure } from '@mantine/hooks';
import { IconFingerprint } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { HeaderButton } from '@/components/HeaderButton';
import type { Area } from '../../../lib/area';
import { PasskeysDialog } from './PasskeysDialog';

/** "Passkeys" in a header, opening the dialog where the signed-in account manages its own. */
export function PasskeysButton({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  return (
    <>
      <HeaderButton label={t('passkey.manage.open')} icon={<IconFingerprint size={16} aria-hidden />} onClick={open} />
      <PasskeysDialog realm={realm} opened={opened} onClose={close} />
    </>
  );
}
