import { useState } from 'react';
import { Button } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPlus } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Area } from '../../../lib/area';
import { useAddPasskey } from '../webauthn-api';
import { PasskeyChangeError } from './PasskeyChangeError';
import { PasskeyNameForm } from './PasskeyNameForm';

/** "Add a passkey": a name, then the browser's prompt; the list refreshes once it is stored. */
export function AddPasskey({ realm }: { realm: Area }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const add = useAddPasskey(realm);

  if (!open) {
    return (
      <Button variant="light" leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setOpen(true)}>
        {t('passkey.manage.add')}
      </Button>
    );
  }
  return (
    <PasskeyNameForm
      submitLabel={t('passkey.create')}
      pending={add.isPending}
      onSubmit={(name) =>
        add.mutate(name, {
          onSuccess: () => {
            notifications.show({ color: 'green', message: t('passkey.manage.added') });
            add.reset();
            setOpen(false);
          },
        })
      }
      outcome={<PasskeyChangeError error={add.error} />}
      secondaryAction={
        <Button
          variant="default"
          onClick={() => {
            add.reset();
            setOpen(false);
          }}
        >
          {t('dialog.cancel')}
        </Button>
      }
    />
  );
}
