import { useState } from 'react';
import { Badge, Button, CopyButton, Fieldset, Group, Stack, TextInput } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconCheck, IconCopy, IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { COPY_CONFIRMATION_MS, type AuthenticationSettings } from '@postern/protocol';
import { openConfirmDialog } from '@/components/dialogs/ConfirmDialog';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { useGenerateSamlKeyCert, type SamlRealm } from '../api';
import {
  realmPrefix,
  type AuthenticationValues,
  type FilePick,
  type SamlFileField as FileField,
} from '../settings-values';
import { SamlFileField } from './SamlFileField';

/** Props of {@link SamlRealmFields}. */
export interface SamlRealmFieldsProps {
  realm: SamlRealm;
  form: ZodForm<AuthenticationValues>;
  settings: AuthenticationSettings;
}

const FILES = [
  { suffix: 'SAMLMetadataFile', labelKey: 'metadataFile', accept: '.xml,application/xml,text/xml' },
  { suffix: 'SAMLCertFile', labelKey: 'certFile', accept: '.pem,.crt,.cer' },
  { suffix: 'SAMLKeyFile', labelKey: 'keyFile', accept: '.pem,.key' },
] as const;

/**
 * One SAML realm (users or admins): metadata URL, metadata, certificate and key files, and the
 * generation of a new key pair, which replaces the realm's pair and so is confirmed first.
 */
export function SamlRealmFields({ realm, form, settings }: SamlRealmFieldsProps) {
  const { t } = useTranslation();
  const p = realmPrefix(realm);
  const generate = useGenerateSamlKeyCert();
  const [failure, setFailure] = useState<unknown>(null);
  const realmName = t(`settingsScreen.saml.realm.${realm}`);
  const configured = realm === 'admin' ? settings.AdminSAMLConfigured : settings.UserSAMLConfigured;
  const certificate = realm === 'admin' ? settings.AdminSAMLCert : settings.SAMLCert;

  const confirmGenerate = () =>
    openConfirmDialog(t, {
      title: t('settingsScreen.saml.generateTitle', { realm: realmName }),
      message: t('settingsScreen.saml.generateMessage', { realm: realmName }),
      confirmLabel: t('settingsScreen.saml.generateConfirm'),
      danger: true,
      onConfirm: () =>
        generate.mutate(realm, {
          onSuccess: () => notifications.show({ color: 'green', message: t(`settingsScreen.saml.generated.${realm}`) }),
          onError: setFailure,
        }),
    });

  const fileProps = (field: FileField) => ({
    pick: form.values[field],
    onPick: (pick: FilePick) => form.setFieldValue(field, pick),
    error: typeof form.errors[field] === 'string' ? form.errors[field] : null,
    onError: (error: string | null) =>
      error === null ? form.clearFieldError(field) : form.setFieldError(field, error),
    stored: settings[`${field}Set`],
  });

  return (
    <Fieldset legend={t('settingsScreen.saml.legend', { realm: realmName })} radius="md">
      <Stack gap="sm">
        <Badge color={configured ? 'green' : 'gray'} variant="light">
          {configured ? t('settingsScreen.saml.configured') : t('settingsScreen.saml.notConfigured')}
        </Badge>
        <TextInput
          label={t('settingsScreen.saml.metadataUrl')}
          description={t('settingsScreen.saml.metadataUrlHelp')}
          placeholder="https://idp.example.com/metadata"
          autoComplete="off"
          {...form.getInputProps(`${p}SAMLMetadataURL`)}
        />
        {FILES.map(({ suffix, labelKey, accept }) => (
          <SamlFileField
            key={suffix}
            label={t(`settingsScreen.saml.${labelKey}`)}
            accept={accept}
            {...fileProps(`${p}${suffix}`)}
          />
        ))}
        <Group gap="xs" wrap="wrap">
          <Button
            variant="light"
            color="orange"
            leftSection={<IconKey size={16} aria-hidden />}
            loading={generate.isPending}
            onClick={confirmGenerate}
          >
            {t('settingsScreen.saml.generate')}
          </Button>
          {certificate === '' ? null : (
            <CopyButton value={certificate} timeout={COPY_CONFIRMATION_MS}>
              {({ copied, copy }) => (
                <Button
                  variant="default"
                  leftSection={copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
                  onClick={copy}
                >
                  {copied ? t('dialog.copied') : t('settingsScreen.saml.copyCertificate')}
                </Button>
              )}
            </CopyButton>
          )}
        </Group>
      </Stack>
      <ErrorDialog error={failure} onClose={() => setFailure(null)} />
    </Fieldset>
  );
}
