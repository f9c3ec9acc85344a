import { useState } from 'react';
import { Alert, Badge, Button, Fieldset, Group, List, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconCircleX, IconPlugConnected } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import {
  OIDC_DEFAULT_GROUPS_CLAIM,
  OIDC_DEFAULT_SCOPES,
  OIDC_DEFAULT_USER_NAME_CLAIM,
  type AuthenticationSettings,
  type OidcRealm,
  type OidcTestResult,
} from '@postern/protocol';
import { CopyIconButton } from '@/components/CopyIconButton';
import { ErrorDialog } from '@/components/dialogs/ErrorDialog';
import type { ZodForm } from '@/lib/forms/use-zod-form';
import { useTestOidcConfiguration } from '../api';
import { realmPrefix, type AuthenticationValues } from '../settings-values';

/** Props of {@link OidcRealmFields}. */
export interface OidcRealmFieldsProps {
  realm: OidcRealm;
  form: ZodForm<AuthenticationValues>;
  settings: AuthenticationSettings;
  /** The section holds unsaved edits: the test, which reads the saved configuration, waits for a save. */
  dirty: boolean;
}

/**
 * One OpenID Connect realm (users or admins): the provider's issuer, the client registered there,
 * how its claims are read, the redirect URI to register, and a test of the saved configuration.
 * The client secret is never shown: the field only ever takes a new one.
 */
export function OidcRealmFields({ realm, form, settings, dirty }: OidcRealmFieldsProps) {
  const { t } = useTranslation();
  const p = realmPrefix(realm);
  const configured = realm === 'admin' ? settings.AdminOIDCConfigured : settings.UserOIDCConfigured;
  const secretStored = settings[`${p}OIDCClientSecretSet`];
  const removing = form.values[`${p}OIDCClientSecretRemove`];
  const redirectUrl = settings[`${p}OIDCRedirectURL`];

  const secretError = form.errors[`${p}OIDCClientSecret`];
  const secretState = removing
    ? t('settingsScreen.oidc.secretWillBeRemoved')
    : secretStored
      ? t('settingsScreen.oidc.secretStored')
      : t('settingsScreen.oidc.secretNone');

  return (
    <Fieldset legend={t(`settingsScreen.oidc.legend.${realm}`)} radius="md">
      <Stack gap="sm">
        <Badge color={configured ? 'green' : 'gray'} variant="light">
          {configured ? t('settingsScreen.oidc.configured') : t('settingsScreen.oidc.notConfigured')}
        </Badge>
        <TextInput
          label={t('settingsScreen.oidc.issuerUrl')}
          description={t('settingsScreen.oidc.issuerUrlHelp')}
          placeholder="https://idp.example.com/realms/postern"
          autoComplete="off"
          {...form.getInputProps(`${p}OIDCIssuerURL`)}
        />
        <TextInput
          label={t('settingsScreen.oidc.clientId')}
          autoComplete="off"
          {...form.getInputProps(`${p}OIDCClientID`)}
        />
        <Stack gap={4}>
          <PasswordInput
            label={t('settingsScreen.oidc.clientSecret')}
            description={
              <Text component="span" size="xs" c={removing ? 'orange' : undefined} inherit>
                {secretState}
              </Text>
            }
            placeholder={secretStored && !removing ? t('settingsScreen.oidc.secretStoredPlaceholder') : undefined}
            // Not the admin's own password: a browser must not fill it in.
            autoComplete="new-password"
            value={form.values[`${p}OIDCClientSecret`]}
            error={secretError}
            onChange={(event) => {
              form.setFieldValue(`${p}OIDCClientSecret`, event.currentTarget.value);
              // A new secret replaces the stored one; asking for both at once the server refuses.
              if (removing) form.setFieldValue(`${p}OIDCClientSecretRemove`, false);
            }}
          />
          {secretStored ? (
            <Group justify="flex-end">
              <Button
                variant="subtle"
                size="compact-sm"
                color={removing ? 'gray' : 'red'}
                onClick={() => {
                  form.setFieldValue(`${p}OIDCClientSecretRemove`, !removing);
                  if (!removing) form.setFieldValue(`${p}OIDCClientSecret`, '');
                }}
              >
                {removing ? t('settingsScreen.oidc.keepSecret') : t('settingsScreen.oidc.removeSecret')}
              </Button>
            </Group>
          ) : null}
        </Stack>
        <TextInput
          label={t('settingsScreen.oidc.displayName')}
          description={t('settingsScreen.oidc.displayNameHelp')}
          autoComplete="off"
          {...form.getInputProps(`${p}OIDCDisplayName`)}
        />
        <TextInput
          label={t('settingsScreen.oidc.userNameClaim')}
          description={t('settingsScreen.oidc.userNameClaimHelp', { default: OIDC_DEFAULT_USER_NAME_CLAIM })}
          placeholder={OIDC_DEFAULT_USER_NAME_CLAIM}
          autoComplete="off"
          {...form.getInputProps(`${p}OIDCUserNameClaim`)}
        />
        <TextInput
          label={t('settingsScreen.oidc.groupsClaim')}
          description={t('settingsScreen.oidc.groupsClaimHelp', { default: OIDC_DEFAULT_GROUPS_CLAIM })}
          placeholder={OIDC_DEFAULT_GROUPS_CLAIM}
          autoComplete="off"
          {...form.getInputProps(`${p}OIDCGroupsClaim`)}
        />
        <TextInput
          label={t('settingsScreen.oidc.scopes')}
          description={t('settingsScreen.oidc.scopesHelp', { default: OIDC_DEFAULT_SCOPES })}
          placeholder={OIDC_DEFAULT_SCOPES}
          autoComplete="off"
          {...form.getInputProps(`${p}OIDCScopes`)}
        />
        <RedirectUrl url={redirectUrl} publicUrlEdited={form.values.PublicURL.trim() !== settings.PublicURL} />
        <OidcTest realm={realm} settings={settings} dirty={dirty} />
      </Stack>
    </Fieldset>
  );
}

/** The redirect URI the provider must know, read-only with a copy button; without PublicURL, how to get one. */
function RedirectUrl({ url, publicUrlEdited }: { url: string; publicUrlEdited: boolean }) {
  const { t } = useTranslation();
  if (url === '') {
    return (
      <Text size="sm" c="dimmed">
        {t('settingsScreen.oidc.redirectUrlNone')}
      </Text>
    );
  }
  return (
    <TextInput
      label={t('settingsScreen.oidc.redirectUrl')}
      // The server makes it from the saved PublicURL; an edited one is not it yet.
      description={
        publicUrlEdited ? t('settingsScreen.oidc.redirectUrlPending') : t('settingsScreen.oidc.redirectUrlHelp')
      }
      value={url}
      readOnly
      rightSection={
        <CopyIconButton value={url} label={t('settingsScreen.oidc.copyRedirectUrl')} copiedLabel={t('dialog.copied')} />
      }
    />
  );
}

/**
 * The Test button and its latest result. A result belongs to the saved settings it was made with:
 * once they change (a save here or elsewhere), it is no longer shown.
 */
function OidcTest({ realm, settings, dirty }: { realm: OidcRealm; settings: AuthenticationSettings; dirty: boolean }) {
  const { t } = useTranslation();
  const test = useTestOidcConfiguration();
  const [failure, setFailure] = useState<unknown>(null);
  const [latest, setLatest] = useState<{ result: OidcTestResult; basis: AuthenticationSettings } | null>(null);
  const result = latest !== null && latest.basis === settings ? latest.result : null;

  const run = () =>
    test.mutate(realm, {
      onSuccess: (answer) => setLatest({ result: answer, basis: settings }),
      onError: setFailure,
    });

  return (
    <Stack gap="xs">
      <Group gap="sm" wrap="nowrap" align="center">
        <Button
          variant="light"
          leftSection={<IconPlugConnected size={16} aria-hidden />}
          loading={test.isPending}
          disabled={dirty}
          onClick={run}
        >
          {t('settingsScreen.oidc.test')}
        </Button>
        <Text size="xs" c={dirty ? 'orange' : 'dimmed'}>
          {dirty ? t('settingsScreen.oidc.testSaveFirst') : t('settingsScreen.oidc.testHelp')}
        </Text>
      </Group>
      {result === null ? null : <OidcTestOutcome result={result} />}
      <ErrorDialog error={failure} onClose={() => setFailure(null)} />
    </Stack>
  );
}

/** A test's result: works (issuer, sign-out at the provider) or the problems; warnings either way. */
function OidcTestOutcome({ result }: { result: OidcTestResult }) {
  const { t } = useTranslation();
  return (
    <Stack gap="xs">
      {result.Ok ? (
        <Alert
          color="green"
          variant="light"
          title={t('settingsScreen.oidc.testWorks')}
          icon={<IconCircleCheck aria-hidden />}
        >
          <Stack gap={2}>
            {result.Issuer === null ? null : (
              <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                {t('settingsScreen.oidc.testIssuer', { issuer: result.Issuer })}
              </Text>
            )}
            <Text size="sm">
              {result.EndSession ? t('settingsScreen.oidc.testEndSession') : t('settingsScreen.oidc.testNoEndSession')}
            </Text>
          </Stack>
        </Alert>
      ) : (
        <Alert
          color="red"
          variant="light"
          title={t('settingsScreen.oidc.testFailed')}
          icon={<IconCircleX aria-hidden />}
        >
          <SentenceList sentences={result.Problems} />
        </Alert>
      )}
      {result.Warnings.length === 0 ? null : (
        <Alert
          color="yellow"
          variant="light"
          title={t('settingsScreen.oidc.testWarnings')}
          icon={<IconAlertTriangle aria-hidden />}
        >
          <SentenceList sentences={result.Warnings} />
        </Alert>
      )}
    </Stack>
  );
}

/** The server's sentences as it wrote them (English: they name protocol fields and URLs). */
function SentenceList({ sentences }: { sentences: string[] }) {
  return (
    <List size="sm" spacing={2}>
      {sentences.map((sentence, index) => (
        <List.Item key={index} style={{ overflowWrap: 'anywhere' }}>
          {sentence}
        </List.Item>
      ))}
    </List>
  );
}
