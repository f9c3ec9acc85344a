import { useMemo } from 'react';
import { useDisclosure } from '@mantine/hooks';
import { IconLock } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { HeaderButton } from '@/components/HeaderButton';
import { ChangePasswordDialog } from './ChangePasswordDialog';

/** Props of {@link ChangePasswordButton}. */
export interface ChangePasswordButtonProps {
  /** The person's display name and user name, which a good password does not contain. */
  names: readonly string[];
}

/** Words a password should not be built from: each name whole and word by word. */
function userInputsOf(names: readonly string[]): string[] {
  const words = names.flatMap((name) => [name, ...name.split(/[\s._@-]+/)]).map((word) => word.trim());
  return [...new Set(words.filter((word) => word.length > 1))];
}

/** "Change password" and its dialog; the pages show it to local accounts only. */
export function ChangePasswordButton({ names }: ChangePasswordButtonProps) {
  const { t } = useTranslation();
  const [opened, { open, close }] = useDisclosure(false);
  const userInputs = useMemo(() => userInputsOf(names), [names]);
  return (
    <>
      <HeaderButton label={t('account.changePassword')} icon={<IconLock size={16} aria-hidden />} onClick={open} />
      <ChangePasswordDialog opened={opened} onClose={close} userInputs={userInputs} />
    </>
  );
}
