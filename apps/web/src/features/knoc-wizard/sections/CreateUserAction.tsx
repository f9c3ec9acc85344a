import { useState } from 'react';
import { Button } from '@mantine/core';
import { IconUserPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { UserRecord } from '@postern/protocol';
import { SecretRevealDialog } from '@/components/dialogs/SecretRevealDialog';
import { useAdminStatus } from '@/features/status/api';
import { UserFormDialog } from '@/features/users/components/UserFormDialog';
import { licenceSessionLimit } from '@/features/users/user-limit';

/**
 * The Users step's "Create user": the users screen's own dialog (and its one-time key, if any).
 * `onCreated` hears of the new user, so the step can select whom the admin just made.
 */
export function CreateUserAction({ onCreated }: { onCreated?: (user: UserRecord) => void }) {
  const { t } = useTranslation();
  const licensing = useAdminStatus().data?.Licensing;
  const [open, setOpen] = useState(false);
  const [revealed, setRevealed] = useState<{ userName: string; key: string } | null>(null);
  return (
    <>
      <Button
        variant="light"
        w="fit-content"
        leftSection={<IconUserPlus size={16} aria-hidden />}
        onClick={() => setOpen(true)}
      >
        {t('knocWizard.members.createUser')}
      </Button>
      {open ? (
        <UserFormDialog
          maxSessionLimit={licensing === undefined ? null : licenceSessionLimit(licensing)}
          onClose={() => setOpen(false)}
          onKeyCreated={setRevealed}
          onCreated={onCreated}
        />
      ) : null}
      <SecretRevealDialog
        secret={revealed?.key ?? null}
        title={t('usersScreen.form.apiKeyCreatedTitle', { name: revealed?.userName ?? '' })}
        description={t('usersScreen.form.apiKeyCreatedDescription')}
        onClose={() => setRevealed(null)}
      />
    </>
  );
}
