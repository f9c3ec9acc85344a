import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AuthenticationSettingsResponse, ErrorCodes, SamlKeyCertResponse } from '@postern/protocol';
import { signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { apiError, data } from '@/test-support/typed-fake-api';
import { authenticationSettings, oidcBodyDefaults, passkeyBodyDefaults } from '@/test-support/records/settings';
import { findSection, installSettingsApi } from '@/test-support/screens/settings';

const METADATA = '<md:EntityDescriptor><md:IDPSSODescriptor/></md:EntityDescriptor>';

async function openAuthentication() {
  signInAdmin();
  const app = renderApp('/admin/settings');
  const section = await findSection('Authentication');
  // The section's frame comes first; its form follows once the authentication settings have come.
  await within(section).findByRole('tab', { name: 'SAML' }, { timeout: 5000 });
  return { ...app, section };
}

const realm = (section: HTMLElement, name: 'SAML for users' | 'SAML for admins') =>
  within(section).getByRole('group', { name });

describe('settings: authentication', { timeout: 30_000 }, () => {
  it('refuses metadata and public URLs that are not http or https', async () => {
    const api = installSettingsApi();
    const { user, section } = await openAuthentication();
    await user.type(within(section).getByRole('textbox', { name: /Public URL/ }), 'x.y');
    await user.type(
      within(realm(section, 'SAML for admins')).getByRole('textbox', { name: /Metadata URL/ }),
      'ftp://i',
    );
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    expect(await within(section).findAllByText('URL must be http or https')).toHaveLength(2);
    expect(api.calls('PUT /api/admin/settings/authentication')).toHaveLength(0);
  });

  it('refuses an LDAP URL that is not ldap or ldaps, showing the LDAP tab', async () => {
    const api = installSettingsApi();
    const { user, section } = await openAuthentication();
    await user.click(within(section).getByRole('tab', { name: 'LDAP' }));
    await user.type(within(section).getByRole('textbox', { name: /LDAP server URL/ }), 'http://l');
    await user.click(within(section).getByRole('tab', { name: 'SAML' }));
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    expect(await within(section).findByText('URL must be ldap or ldaps')).toBeVisible();
    expect(within(section).getByRole('tab', { name: 'LDAP' })).toHaveAttribute('aria-selected', 'true');
    expect(api.calls('PUT /api/admin/settings/authentication')).toHaveLength(0);
  });

  it('saves LDAP URL, StartTLS and skip TLS verification', async () => {
    const api = installSettingsApi({
      'PUT /api/admin/settings/authentication': data(
        AuthenticationSettingsResponse,
        authenticationSettings({ LDAPURL: 'ldaps://ldap.example.com', LDAPStartTLS: true, LDAPSkipVerifyTLS: true }),
      ),
    });
    const { user, section } = await openAuthentication();
    await user.click(within(section).getByRole('tab', { name: 'LDAP' }));
    await user.type(within(section).getByRole('textbox', { name: /LDAP server URL/ }), 'ldaps://ldap.example.com');
    await user.click(within(section).getByRole('checkbox', { name: 'Use StartTLS' }));
    await user.click(within(section).getByRole('checkbox', { name: /Skip TLS certificate verification/ }));
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls('PUT /api/admin/settings/authentication')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/authentication')[0]?.body).toEqual({
      SAMLMetadataURL: '',
      AdminSAMLMetadataURL: '',
      PublicURL: '',
      LDAPURL: 'ldaps://ldap.example.com',
      LDAPStartTLS: true,
      LDAPSkipVerifyTLS: true,
      ...oidcBodyDefaults(),
      ...passkeyBodyDefaults(),
    });
    expect(await screen.findByText('Settings updated')).toBeInTheDocument();
    await waitFor(() => expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled());
  });

  it('sends a chosen metadata file with its Set flag and a removed key with its Remove flag', async () => {
    const api = installSettingsApi(
      {
        'PUT /api/admin/settings/authentication': data(
          AuthenticationSettingsResponse,
          authenticationSettings({ SAMLMetadataFileSet: true, SAMLCertFileSet: true }),
        ),
      },
      { authentication: authenticationSettings({ SAMLKeyFileSet: true, SAMLCertFileSet: true }) },
    );
    const { user, section } = await openAuthentication();
    const users = realm(section, 'SAML for users');
    await user.upload(
      within(users).getByLabelText('Choose Metadata file'),
      new File([METADATA], 'idp.xml', { type: 'text/xml' }),
    );
    expect(await within(users).findByText('idp.xml: saved when you press Save')).toBeInTheDocument();
    await user.click(within(users).getByRole('button', { name: 'Remove Key file' }));
    expect(within(users).getByText('Removed when you press Save')).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(api.calls('PUT /api/admin/settings/authentication')).toHaveLength(1));
    expect(api.calls('PUT /api/admin/settings/authentication')[0]?.body).toMatchObject({
      SAMLMetadataFile: METADATA,
      SAMLMetadataFileSet: true,
      SAMLKeyFileRemove: true,
    });
    expect(api.calls('PUT /api/admin/settings/authentication')[0]?.body).not.toHaveProperty('SAMLCertFile');
  });

  it('shows the server’s refusal of a file under that file', async () => {
    installSettingsApi({
      'PUT /api/admin/settings/authentication': apiError(
        400,
        ErrorCodes.badRequest,
        'AdminSAMLCertFile: not a certificate in PEM form',
      ),
    });
    const { user, section } = await openAuthentication();
    const admins = realm(section, 'SAML for admins');
    await user.upload(within(admins).getByLabelText('Choose Certificate file'), new File(['nope'], 'sp.pem'));
    expect(await within(admins).findByText('sp.pem: saved when you press Save')).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    expect(await within(admins).findByText('Bad request: not a certificate in PEM form')).toBeInTheDocument();
  });

  it('generates a new key pair only after the confirmation that it replaces the pair', async () => {
    const api = installSettingsApi({
      'POST /api/admin/settings/generateAdminSamlKeyCert': data(SamlKeyCertResponse, { Certificate: 'CERT' }),
    });
    const { user, section } = await openAuthentication();
    const admins = realm(section, 'SAML for admins');

    await user.click(within(admins).getByRole('button', { name: 'Generate new key pair' }));
    let confirm = await screen.findByRole('dialog', { name: 'Generate a new SAML key pair for admins?' });
    expect(confirm).toHaveTextContent('This replaces the existing SAML key and certificate for admins.');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls('POST /api/admin/settings/generateAdminSamlKeyCert')).toHaveLength(0);

    const readsBefore = api.calls('GET /api/admin/settings/authentication').length;
    await user.click(within(admins).getByRole('button', { name: 'Generate new key pair' }));
    confirm = await screen.findByRole('dialog', { name: 'Generate a new SAML key pair for admins?' });
    await user.click(within(confirm).getByRole('button', { name: 'Generate and replace' }));
    expect(await screen.findByText('A new SAML key pair was generated for admins')).toBeInTheDocument();
    expect(api.calls('POST /api/admin/settings/generateAdminSamlKeyCert')).toHaveLength(1);
    await waitFor(() =>
      expect(api.calls('GET /api/admin/settings/authentication').length).toBeGreaterThan(readsBefore),
    );
  });

  it('shows a failed key generation in the “Error” dialog', async () => {
    installSettingsApi({
      'POST /api/admin/settings/generateUserSamlKeyCert': apiError(500, ErrorCodes.internalServerError),
    });
    const { user, section } = await openAuthentication();
    await user.click(within(realm(section, 'SAML for users')).getByRole('button', { name: 'Generate new key pair' }));
    const confirm = await screen.findByRole('dialog', { name: 'Generate a new SAML key pair for users?' });
    await user.click(within(confirm).getByRole('button', { name: 'Generate and replace' }));
    expect(await screen.findByRole('dialog', { name: 'Error' })).toBeInTheDocument();
  });
});
