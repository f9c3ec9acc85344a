import { useState } from 'react';
import { Checkbox, Stack, Switch, Tabs, TextInput } from '@mantine/core';
import type { FormErrors } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { AuthenticationSettingsBody, type AuthenticationSettings } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import type { IssueKey } from '@/lib/forms/zod-form-errors';
import { useAuthenticationSettings, useSaveAuthentication } from '../api';
import { authenticationBody, authenticationValues, type AuthenticationValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { OidcRealmFields } from './OidcRealmFields';
import { SamlRealmFields } from './SamlRealmFields';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

// URLs and the OpenID Connect texts are checked here; files are checked when picked (size) and by
// the server (content).
const SCHEMA = AuthenticationSettingsBody.pick({
  SAMLMetadataURL: true,
  AdminSAMLMetadataURL: true,
  PublicURL: true,
  LDAPURL: true,
  OIDCIssuerURL: true,
  OIDCClientID: true,
  OIDCClientSecret: true,
  OIDCDisplayName: true,
  OIDCUserNameClaim: true,
  OIDCGroupsClaim: true,
  OIDCScopes: true,
  AdminOIDCIssuerURL: true,
  AdminOIDCClientID: true,
  AdminOIDCClientSecret: true,
  AdminOIDCDisplayName: true,
  AdminOIDCUserNameClaim: true,
  AdminOIDCGroupsClaim: true,
  AdminOIDCScopes: true,
});

/**
 * The texts of the OpenID Connect rules whose zod messages are developer English (claim names,
 * scopes, control characters, lengths); the URLs' `err.` keys stay as they are.
 */
const issueKey: IssueKey = (issue) => {
  const field = String(issue.path[0] ?? '');
  if (issue.message.startsWith('err.') || !field.includes('OIDC')) return undefined;
  if (issue.code === 'too_big') return 'form.tooLong';
  if (field.endsWith('Claim')) return 'settingsScreen.oidc.claimInvalid';
  if (field.endsWith('Scopes')) return 'settingsScreen.oidc.scopesInvalid';
  return 'settingsScreen.oidc.controlCharacters';
};

const AUTH_TABS = ['saml', 'oidc', 'ldap', 'passkeys'] as const;
type AuthTab = (typeof AUTH_TABS)[number];
const isAuthTab = (value: string | null): value is AuthTab => AUTH_TABS.some((tab) => tab === value);

/** The tab holding a field; null for the Public URL, which is above the tabs. */
function tabOfField(field: string): AuthTab | null {
  if (field.startsWith('LDAP')) return 'ldap';
  if (field.includes('OIDC')) return 'oidc';
  if (field.includes('SAML')) return 'saml';
  return null;
}

/**
 * The tab to show after a refused submit: the current one when it holds an error, else the first
 * that does; null when every error is in view already.
 */
function tabOfErrors(errors: FormErrors, current: AuthTab): AuthTab | null {
  const tabs = new Set(Object.keys(errors).map(tabOfField));
  if (tabs.has(current)) return current;
  return AUTH_TABS.find((tab) => tabs.has(tab)) ?? null;
}

/**
 * Authentication: the public URL, which SAML and OpenID Connect both send the browser back to, then
 * a SAML tab and an OpenID Connect tab (each for users and admins separately), an LDAP tab, and a
 * Passkeys tab with the two switches for signing in with a passkey alone.
 */
export function AuthenticationSection() {
  const { t } = useTranslation();
  const query = useAuthenticationSettings();
  return (
    <SettingsSection title={t('settingsScreen.authentication.title')}>
      <QueryState data={query.data} isError={query.isError} error={query.error}>
        {(settings) => <AuthenticationForm settings={settings} />}
      </QueryState>
    </SettingsSection>
  );
}

function AuthenticationForm({ settings }: { settings: AuthenticationSettings }) {
  const { t } = useTranslation();
  const saveAuthentication = useSaveAuthentication();
  const [tab, setTab] = useState<AuthTab>('saml');
  const section = useSectionForm<AuthenticationValues>({
    schema: SCHEMA,
    issueKey,
    saved: authenticationValues(settings),
    save: async (values) => authenticationValues(await saveAuthentication.mutateAsync(authenticationBody(values))),
    successMessage: t('settingsScreen.saved'),
    // A field in the hidden tab would refuse the save without anyone seeing why.
    onInvalid: (errors) => setTab(tabOfErrors(errors, tab) ?? tab),
  });
  const { form } = section;
  return (
    <SectionForm section={section}>
      <TextInput
        label={t('settingsScreen.saml.publicUrl')}
        description={t('settingsScreen.saml.publicUrlHelp')}
        placeholder="https://postern.example.com"
        autoComplete="off"
        {...form.getInputProps('PublicURL')}
      />
      <Tabs value={tab} onChange={(value) => setTab(isAuthTab(value) ? value : 'saml')}>
        <Tabs.List>
          <Tabs.Tab value="saml">{t('settingsScreen.authentication.samlTab')}</Tabs.Tab>
          <Tabs.Tab value="oidc">{t('settingsScreen.authentication.oidcTab')}</Tabs.Tab>
          <Tabs.Tab value="ldap">{t('settingsScreen.authentication.ldapTab')}</Tabs.Tab>
          <Tabs.Tab value="passkeys">{t('settingsScreen.authentication.passkeysTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="saml" pt="md">
          <Stack gap="md">
            <SamlRealmFields realm="user" form={form} settings={settings} />
            <SamlRealmFields realm="admin" form={form} settings={settings} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="oidc" pt="md">
          <Stack gap="md">
            <OidcRealmFields realm="user" form={form} settings={settings} dirty={section.dirty} />
            <OidcRealmFields realm="admin" form={form} settings={settings} dirty={section.dirty} />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="ldap" pt="md">
          <Stack gap="sm">
            <TextInput
              label={t('settingsScreen.ldap.url')}
              description={t('settingsScreen.ldap.urlHelp')}
              placeholder="ldaps://ldap.example.com"
              autoComplete="off"
              {...form.getInputProps('LDAPURL')}
            />
            <Checkbox
              label={t('settingsScreen.ldap.startTls')}
              {...form.getInputProps('LDAPStartTLS', { type: 'checkbox' })}
            />
            <Checkbox
              label={t('settingsScreen.ldap.skipVerifyTls')}
              description={t('settingsScreen.ldap.skipVerifyTlsHelp')}
              color="red"
              {...form.getInputProps('LDAPSkipVerifyTLS', { type: 'checkbox' })}
            />
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="passkeys" pt="md">
          <Stack gap="md">
            <Switch
              label={t('settingsScreen.passkeys.userSignIn')}
              description={t('settingsScreen.passkeys.userSignInHelp')}
              {...form.getInputProps('UserPasskeySignIn', { type: 'checkbox' })}
            />
            <Switch
              label={t('settingsScreen.passkeys.adminSignIn')}
              description={t('settingsScreen.passkeys.adminSignInHelp')}
              {...form.getInputProps('AdminPasskeySignIn', { type: 'checkbox' })}
            />
          </Stack>
        </Tabs.Panel>
      </Tabs>
    </SectionForm>
  );
}
