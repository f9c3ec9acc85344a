import { useState } from 'react';
import { Checkbox, Stack, Tabs, TextInput } from '@mantine/core';
import type { FormErrors } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { AuthenticationSettingsBody, type AuthenticationSettings } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { useAuthenticationSettings, useSaveAuthentication } from '../api';
import { authenticationBody, authenticationValues, type AuthenticationValues } from '../settings-values';
import { useSectionForm } from '../use-section-form';
import { SamlRealmFields } from './SamlRealmFields';
import { SectionForm } from './SectionForm';
import { SettingsSection } from './SettingsSection';

// URLs are checked here; files are checked when picked (size) and by the server (content).
const SCHEMA = AuthenticationSettingsBody.pick({
  SAMLMetadataURL: true,
  AdminSAMLMetadataURL: true,
  PublicURL: true,
  LDAPURL: true,
});

type AuthTab = 'saml' | 'ldap';

/** The tab holding the first field a refused submit complains about. */
function tabOfErrors(errors: FormErrors): AuthTab | null {
  const fields = Object.keys(errors);
  if (fields.length === 0) return null;
  return fields.every((field) => field.startsWith('LDAP')) ? 'ldap' : 'saml';
}

/** Authentication: a SAML tab (users and admins separately, public URL) and an LDAP tab. */
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
    saved: authenticationValues(settings),
    save: async (values) => authenticationValues(await saveAuthentication.mutateAsync(authenticationBody(values))),
    successMessage: t('settingsScreen.saved'),
    // A field in the hidden tab would refuse the save without anyone seeing why.
    onInvalid: (errors) => setTab(tabOfErrors(errors) ?? tab),
  });
  const { form } = section;
  return (
    <SectionForm section={section}>
      <Tabs value={tab} onChange={(value) => setTab(value === 'ldap' ? 'ldap' : 'saml')}>
        <Tabs.List>
          <Tabs.Tab value="saml">{t('settingsScreen.authentication.samlTab')}</Tabs.Tab>
          <Tabs.Tab value="ldap">{t('settingsScreen.authentication.ldapTab')}</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="saml" pt="md">
          <Stack gap="md">
            <TextInput
              label={t('settingsScreen.saml.publicUrl')}
              description={t('settingsScreen.saml.publicUrlHelp')}
              placeholder="https://postern.example.com"
              autoComplete="off"
              {...form.getInputProps('PublicURL')}
            />
            <SamlRealmFields realm="user" form={form} settings={settings} />
            <SamlRealmFields realm="admin" form={form} settings={settings} />
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
      </Tabs>
    </SectionForm>
  );
}
