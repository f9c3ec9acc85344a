import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationSettingsResponse,
  ErrorCodes,
  OidcTestResponse,
  type AuthenticationSettings,
  type OidcTestResult,
} from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { stubClipboard } from '@/test-support/clipboard';
import { signInAdmin } from '@/test-support/fixtures';
import { renderApp } from '@/test-support/render-app';
import { apiError, data, type FakeRoute, type TypedHandler } from '@/test-support/typed-fake-api';
import { authenticationSettings } from '@/test-support/records/settings';
import { findSection, installSettingsApi } from '@/test-support/screens/settings';

const PUT = 'PUT /api/admin/settings/authentication';
const TEST = 'POST /api/admin/settings/oidc/test';

/** The admins' provider, fully set up: what a save of the users' realm must leave alone. */
const ADMIN_REALM: Partial<AuthenticationSettings> = {
  AdminOIDCIssuerURL: 'https://admin-idp.example.com',
  AdminOIDCClientID: 'postern-admin',
  AdminOIDCClientSecretSet: true,
  AdminOIDCDisplayName: 'Admin ID',
  AdminOIDCUserNameClaim: 'email',
  AdminOIDCGroupsClaim: '',
  AdminOIDCScopes: 'openid email',
  PublicURL: 'https://postern.example.com',
  AdminOIDCRedirectURL: 'https://postern.example.com/api/admin/oidc/callback',
  OIDCRedirectURL: 'https://postern.example.com/api/oidc/callback',
  AdminOIDCConfigured: true,
};

/** The users' provider, saved with a secret. */
const USER_REALM: Partial<AuthenticationSettings> = {
  OIDCIssuerURL: 'https://idp.example.com/realms/postern',
  OIDCClientID: 'postern',
  OIDCClientSecretSet: true,
  PublicURL: 'https://postern.example.com',
  OIDCRedirectURL: 'https://postern.example.com/api/oidc/callback',
  UserOIDCConfigured: true,
};

const testResult = (overrides: Partial<OidcTestResult> = {}): OidcTestResult => ({
  Realm: 'user',
  Ok: true,
  Problems: [],
  Warnings: [],
  Issuer: 'https://idp.example.com/realms/postern',
  EndSession: true,
  ...overrides,
});

async function openOidc(
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  authentication: AuthenticationSettings = authenticationSettings(),
  sectionName = 'Authentication',
) {
  const api = installSettingsApi(routes, { authentication });
  signInAdmin();
  const app = renderApp('/admin/settings');
  const section = await findSection(sectionName);
  const tab = await within(section).findByRole('tab', { name: 'OpenID Connect' }, { timeout: 5000 });
  await app.user.click(tab);
  return { ...app, api, section };
}

const realm = (section: HTMLElement, name: 'OpenID Connect for users' | 'OpenID Connect for admins') =>
  within(section).getByRole('group', { name });
const field = (group: HTMLElement, name: RegExp) => within(group).getByRole('textbox', { name });
const secretField = (group: HTMLElement) => within(group).getByLabelText(/^Client secret/);

describe('settings: OpenID Connect', { timeout: 30_000 }, () => {
  it('saves the users’ provider, sending the secret typed and leaving the admins’ provider as stored', async () => {
    const saved = authenticationSettings({
      ...ADMIN_REALM,
      OIDCIssuerURL: 'https://idp.example.com/realms/postern',
      OIDCClientID: 'postern',
      OIDCClientSecretSet: true,
      OIDCDisplayName: 'Example ID',
      OIDCGroupsClaim: 'roles',
    });
    const { api, user, section } = await openOidc(
      { [PUT]: data(AuthenticationSettingsResponse, saved) },
      authenticationSettings(ADMIN_REALM),
    );
    const users = realm(section, 'OpenID Connect for users');
    expect(within(users).getByText('Not configured')).toBeInTheDocument();
    expect(within(realm(section, 'OpenID Connect for admins')).getByText('Configured')).toBeInTheDocument();

    await user.type(field(users, /^Issuer URL/), ' https://idp.example.com/realms/postern ');
    await user.type(field(users, /^Client ID/), 'postern');
    await user.type(secretField(users), 's3cret');
    await user.type(field(users, /^Display name/), 'Example ID');
    await user.clear(field(users, /^User name claim/));
    expect(field(users, /^User name claim/)).toHaveAttribute('placeholder', 'preferred_username');
    await user.clear(field(users, /^Groups claim/));
    await user.type(field(users, /^Groups claim/), 'roles');
    await user.clear(field(users, /^Scopes/));
    expect(field(users, /^Scopes/)).toHaveAttribute('placeholder', 'openid profile email groups');
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(api.calls(PUT)).toHaveLength(1));
    expect(api.calls(PUT)[0]?.body).toEqual({
      SAMLMetadataURL: '',
      AdminSAMLMetadataURL: '',
      PublicURL: 'https://postern.example.com',
      LDAPURL: '',
      LDAPStartTLS: false,
      LDAPSkipVerifyTLS: false,
      OIDCIssuerURL: 'https://idp.example.com/realms/postern',
      OIDCClientID: 'postern',
      OIDCClientSecret: 's3cret',
      OIDCDisplayName: 'Example ID',
      OIDCUserNameClaim: '',
      OIDCGroupsClaim: 'roles',
      OIDCScopes: '',
      // The admins' realm as stored: no secret (the stored one stays) and no removal.
      AdminOIDCIssuerURL: 'https://admin-idp.example.com',
      AdminOIDCClientID: 'postern-admin',
      AdminOIDCDisplayName: 'Admin ID',
      AdminOIDCUserNameClaim: 'email',
      AdminOIDCGroupsClaim: '',
      AdminOIDCScopes: 'openid email',
      UserPasskeySignIn: true,
      AdminPasskeySignIn: false,
    });
    expect(await screen.findByText('Settings updated')).toBeInTheDocument();
    // The secret is never shown again: the field empties and says one is stored.
    await waitFor(() => expect(secretField(users)).toHaveValue(''));
    expect(
      within(users).getByText('A secret is stored. Leave the field empty to keep it, or type a new one to replace it.'),
    ).toBeInTheDocument();
    expect(field(users, /^User name claim/)).toHaveValue('preferred_username');
    await waitFor(() => expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled());
  });

  it('says a secret is stored, removes it when asked, and can take the removal back', async () => {
    const { api, user, section } = await openOidc(
      {
        [PUT]: data(
          AuthenticationSettingsResponse,
          authenticationSettings({ ...USER_REALM, OIDCClientSecretSet: false }),
        ),
      },
      authenticationSettings(USER_REALM),
    );
    const users = realm(section, 'OpenID Connect for users');
    const admins = realm(section, 'OpenID Connect for admins');
    expect(secretField(users)).toHaveAttribute('placeholder', 'Stored (hidden)');
    expect(within(users).getByText(/^A secret is stored/)).toBeInTheDocument();
    expect(within(admins).getByText('No secret stored.')).toBeInTheDocument();
    expect(within(admins).queryByRole('button', { name: 'Remove the stored secret' })).not.toBeInTheDocument();

    await user.click(within(users).getByRole('button', { name: 'Remove the stored secret' }));
    expect(within(users).getByText('The stored secret is removed when you press Save.')).toBeInTheDocument();
    await user.click(within(users).getByRole('button', { name: 'Keep the stored secret' }));
    expect(within(users).getByText(/^A secret is stored/)).toBeInTheDocument();
    expect(within(section).getByRole('button', { name: 'Save' })).toBeDisabled();

    await user.click(within(users).getByRole('button', { name: 'Remove the stored secret' }));
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(api.calls(PUT)).toHaveLength(1));
    expect(api.calls(PUT)[0]?.body).toMatchObject({ OIDCClientSecretRemove: true });
    expect(api.calls(PUT)[0]?.body).not.toHaveProperty('OIDCClientSecret');
    expect(api.calls(PUT)[0]?.body).not.toHaveProperty('AdminOIDCClientSecretRemove');
    expect(await within(users).findByText('No secret stored.')).toBeInTheDocument();
    expect(within(users).queryByRole('button', { name: 'Remove the stored secret' })).not.toBeInTheDocument();
  });

  it('takes a new secret typed after a removal instead of it, and shows the server’s refusal under it', async () => {
    const { api, user, section } = await openOidc(
      {
        [PUT]: apiError(
          400,
          ErrorCodes.badRequest,
          'OIDCClientSecret: re-enter the client secret when the issuer moves to another host',
        ),
      },
      authenticationSettings(USER_REALM),
    );
    const users = realm(section, 'OpenID Connect for users');
    await user.click(within(users).getByRole('button', { name: 'Remove the stored secret' }));
    await user.type(secretField(users), 'n3w');
    expect(within(users).getByText(/^A secret is stored/)).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(api.calls(PUT)).toHaveLength(1));
    expect(api.calls(PUT)[0]?.body).toMatchObject({ OIDCClientSecret: 'n3w' });
    expect(api.calls(PUT)[0]?.body).not.toHaveProperty('OIDCClientSecretRemove');
    expect(
      await within(users).findByText('Bad request: re-enter the client secret when the issuer moves to another host'),
    ).toBeInTheDocument();
    // Under the secret field: the field names the refusal as its description.
    expect(secretField(users)).toHaveAccessibleDescription(/re-enter the client secret/);
  });

  it('refuses a plain-http issuer before sending anything, showing the OpenID Connect tab', async () => {
    const { api, user, section } = await openOidc();
    await user.type(field(realm(section, 'OpenID Connect for admins'), /^Issuer URL/), 'http://idp.example.com');
    await user.click(within(section).getByRole('tab', { name: 'SAML' }));
    await user.click(within(section).getByRole('button', { name: 'Save' }));

    const admins = realm(section, 'OpenID Connect for admins');
    expect(await within(admins).findByText('URL must be https (plain http only on a loopback address)')).toBeVisible();
    expect(within(section).getByRole('tab', { name: 'OpenID Connect' })).toHaveAttribute('aria-selected', 'true');
    expect(api.calls(PUT)).toHaveLength(0);
  });

  it('refuses a claim name with a space in words of its own, not the schema’s', async () => {
    const { api, user, section } = await openOidc();
    const users = realm(section, 'OpenID Connect for users');
    await user.clear(field(users, /^Groups claim/));
    await user.type(field(users, /^Groups claim/), 'my groups');
    await user.click(within(section).getByRole('button', { name: 'Save' }));
    expect(await within(users).findByText('A claim name has no spaces or control characters')).toBeVisible();
    expect(api.calls(PUT)).toHaveLength(0);
  });

  it('shows the redirect URI read-only with a copy button, or how to get one', async () => {
    const { user, section } = await openOidc({}, authenticationSettings({ ...USER_REALM, AdminOIDCRedirectURL: '' }));
    const writeText = stubClipboard();
    const users = realm(section, 'OpenID Connect for users');
    const redirect = field(users, /^Redirect URI/);
    expect(redirect).toHaveValue('https://postern.example.com/api/oidc/callback');
    expect(redirect).toHaveAttribute('readonly');
    await user.click(within(users).getByRole('button', { name: 'Copy the redirect URI' }));
    expect(writeText).toHaveBeenCalledWith('https://postern.example.com/api/oidc/callback');

    const admins = realm(section, 'OpenID Connect for admins');
    expect(within(admins).queryByRole('textbox', { name: /^Redirect URI/ })).not.toBeInTheDocument();
    expect(within(admins).getByText(/^Set the Public URL above and save/)).toBeInTheDocument();

    // The Public URL is above the tabs, in view from the OpenID Connect tab.
    await user.type(within(section).getByRole('textbox', { name: /Public URL/ }), '/portal');
    expect(within(users).getByText('Changes when the new Public URL is saved.')).toBeInTheDocument();
  });

  it('tests the saved configuration, showing the problems and warnings the server found', async () => {
    let answer: (value: ReturnType<typeof data>) => void = () => undefined;
    const held = new Promise<ReturnType<typeof data>>((resolve) => (answer = resolve));
    const { api, user, section } = await openOidc({ [TEST]: () => held }, authenticationSettings(USER_REALM));
    const users = realm(section, 'OpenID Connect for users');
    const button = within(users).getByRole('button', { name: 'Test the configuration' });

    await user.click(button);
    await waitFor(() => expect(button).toHaveAttribute('data-loading'));
    expect(button).toBeDisabled();
    expect(api.calls(TEST)).toMatchObject([{ body: { Realm: 'user' } }]);

    answer(
      data(
        OidcTestResponse,
        testResult({
          Ok: false,
          Problems: [
            'the metadata at https://idp.example.com/realms/postern/.well-known/openid-configuration answered HTTP 404',
          ],
          Warnings: ['no end_session_endpoint: signing out of Postern does not sign out at the provider'],
          Issuer: null,
          EndSession: false,
        }),
      ),
    );
    const failed = await within(users).findByRole('alert', { name: 'The configuration does not work' });
    expect(failed).toHaveTextContent(
      'the metadata at https://idp.example.com/realms/postern/.well-known/openid-configuration answered HTTP 404',
    );
    expect(within(users).getByRole('alert', { name: 'Warnings' })).toHaveTextContent(
      'no end_session_endpoint: signing out of Postern does not sign out at the provider',
    );
    expect(within(users).queryByText('The configuration works')).not.toBeInTheDocument();
    await waitFor(() => expect(button).not.toHaveAttribute('data-loading'));
  });

  it('shows a working configuration with its issuer and the sign-out at the provider', async () => {
    const { api, user, section } = await openOidc(
      {
        [TEST]: data(
          OidcTestResponse,
          testResult({ Realm: 'admin', Issuer: 'https://admin-idp.example.com', EndSession: true }),
        ),
      },
      authenticationSettings(ADMIN_REALM),
    );
    const admins = realm(section, 'OpenID Connect for admins');
    await user.click(within(admins).getByRole('button', { name: 'Test the configuration' }));

    const works = await within(admins).findByRole('alert', { name: 'The configuration works' });
    expect(works).toHaveTextContent('Issuer: https://admin-idp.example.com');
    expect(works).toHaveTextContent('Signing out of Postern also signs out at the provider.');
    expect(within(admins).queryByRole('alert', { name: 'Warnings' })).not.toBeInTheDocument();
    expect(api.calls(TEST)).toMatchObject([{ body: { Realm: 'admin' } }]);
    // The users' realm was not tested: it shows no result.
    expect(within(realm(section, 'OpenID Connect for users')).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('waits for a save before testing, since the test reads the saved configuration', async () => {
    const { api, user, section } = await openOidc({ [TEST]: data(OidcTestResponse, testResult()) });
    const users = realm(section, 'OpenID Connect for users');
    const button = within(users).getByRole('button', { name: 'Test the configuration' });
    expect(button).toBeEnabled();
    await user.type(field(users, /^Client ID/), 'postern');
    expect(button).toBeDisabled();
    expect(
      within(users).getByText('Save your changes first: the test uses the saved configuration.'),
    ).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Cancel' }));
    expect(button).toBeEnabled();
    expect(api.calls(TEST)).toHaveLength(0);
  });

  it('speaks German, leaving the server’s findings as it wrote them', async () => {
    await i18n.changeLanguage('de');
    const { api, user, section } = await openOidc(
      { [TEST]: data(OidcTestResponse, testResult({ Ok: false, Problems: ['no client secret is set'] })) },
      authenticationSettings(USER_REALM),
      'Authentifizierung',
    );
    const users = within(section).getByRole('group', { name: 'OpenID Connect für Benutzer' });
    await user.click(within(users).getByRole('button', { name: 'Konfiguration testen' }));
    const failed = await within(users).findByRole('alert', { name: 'Die Konfiguration funktioniert nicht' });
    expect(failed).toHaveTextContent('no client secret is set');

    await user.clear(within(users).getByRole('textbox', { name: /^Aussteller-URL/ }));
    await user.type(within(users).getByRole('textbox', { name: /^Aussteller-URL/ }), 'http://idp.example.com');
    await user.click(within(section).getByRole('button', { name: 'Speichern' }));
    expect(
      await within(users).findByText('Die URL muss mit https beginnen (http nur auf einer Loopback-Adresse)'),
    ).toBeVisible();
    expect(api.calls(PUT)).toHaveLength(0);
  });
});
