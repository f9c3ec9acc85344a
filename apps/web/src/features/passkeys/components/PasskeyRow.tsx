import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Stack, Text, Tooltip } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconPencil, IconTrash } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import type { Passkey } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';
import { openConfirmDialog } from '@/components/dialogs/ConfirmDialog';
import type { Area } from '../../../lib/area';
import { useRemovePasskey, useRenamePasskey } from '../webauthn-api';
import { PasskeyChangeError } from './PasskeyChangeError';
import { PasskeyNameForm } from './PasskeyNameForm';

/** One of the account's passkeys: name, synced badge, when added and last used; rename and remove. */
export function PasskeyRow({ realm, passkey }: { realm: Area; passkey: Passkey }) {
  const { t } = useTranslation();
  const [renaming, setRenaming] = useState(false);
  const rename = useRenamePasskey(realm);
  const remove = useRemovePasskey(realm);

  if (renaming) {
    return (
      <PasskeyNameForm
        submitLabel={t('dialog.save')}
        pending={rename.isPending}
        initialName={passkey.Name}
        onSubmit={(name) =>
          rename.mutate(
            { id: passkey.ID, name },
            {
              onSuccess: () => {
                notifications.show({ color: 'green', message: t('passkey.manage.renamed') });
                setRenaming(false);
              },
            },
          )
        }
        outcome={<PasskeyChangeError error={rename.error} />}
        secondaryAction={
          <Button variant="default" onClick={() => setRenaming(false)}>
            {t('dialog.cancel')}
          </Button>
        }
      />
    );
  }

  const askRemove = () =>
    openConfirmDialog(t, {
      title: t('passkey.manage.removeTitle'),
      message: t('passkey.manage.removeMessage', { name: passkey.Name }),
      confirmLabel: t('passkey.manage.remove'),
      danger: true,
      onConfirm: () =>
        remove.mutate(passkey.ID, {
          onSuccess: () => notifications.show({ color: 'green', message: t('passkey.manage.removed') }),
        }),
    });

  return (
    <Stack gap={4}>
      <Group justify="space-between" wrap="nowrap" align="flex-start">
        <Stack gap={2} miw={0}>
          <Group gap="xs">
            <Text fw={600} style={{ overflowWrap: 'anywhere' }}>
              {passkey.Name}
            </Text>
            {passkey.BackedUp ? (
              <Tooltip label={t('passkey.manage.syncedHint')}>
                <Badge variant="light" size="sm">
                  {t('passkey.manage.synced')}
                </Badge>
              </Tooltip>
            ) : null}
          </Group>
          <Text size="sm" c="dimmed">
            {/* "Added 3 days ago", "Hinzugefügt vor 3 Tagen": the moment follows the word in both languages. */}
            {t('passkey.manage.created')} <RelativeTime date={passkey.CreatedAt} />
            {' · '}
            {passkey.LastUsedAt === null ? (
              t('passkey.manage.neverUsed')
            ) : (
              <>
                {t('passkey.manage.lastUsed')} <RelativeTime date={passkey.LastUsedAt} />
              </>
            )}
          </Text>
        </Stack>
        <Group gap={4} wrap="nowrap">
          <Tooltip label={t('passkey.manage.rename')}>
            <ActionIcon
              variant="subtle"
              aria-label={t('passkey.manage.renameLabel', { name: passkey.Name })}
              onClick={() => setRenaming(true)}
            >
              <IconPencil size={16} aria-hidden />
            </ActionIcon>
          </Tooltip>
          <Tooltip label={t('passkey.manage.remove')}>
            <ActionIcon
              variant="subtle"
              color="red"
              loading={remove.isPending}
              aria-label={t('passkey.manage.removeLabel', { name: passkey.Name })}
              onClick={askRemove}
            >
              <IconTrash size={16} aria-hidden />
            </ActionIcon>
          </Tooltip>
        </Group>
      </Group>
      <PasskeyChangeError error={remove.error} />
    </Stack>
  );
}
