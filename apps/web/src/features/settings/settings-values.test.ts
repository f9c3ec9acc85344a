import { describe, expect, it } from 'vitest';
import type { AuthenticationSettings, SettingsRecord } from '@postern/protocol';
import { authenticationBody, authenticationValues, configBody, customiseBody, UNCHANGED_FILE } from './settings-values';
import {
  oidcAuthenticationDefaults,
  oidcBodyDefaults,
  passkeyBodyDefaults,
  passkeySettingsDefaults,
} from '@/test-support/records/settings';

const RECORD: SettingsRecord = {
  License: '',
  CachedLicenses: [],
  DiscoverIP: true,
  DiscoverIPURL: 'https://ip.example.com',
  DiscoverIPv4URL: 'http://v4.portal.example.com',
  DiscoverIPv6URL: '',
  DiscoverIPTrustUnattested: true,
  DebugMode: false,
  GELFListenerURL: 'udp://graylog.example.com:12201',
  KioskSessionDuration: 15,
  Accent: 'grape',
  Logo: 'data:image/png;base64,AAAA',
  LightModeLogo: '',
  HighAccessibility: false,
  NewUserDashboard: true,
};

describe('configBody', () => {
  it('sends the stored values of the other sections with this section’s change', () => {
    expect(configBody(RECORD, { DebugMode: true, GELFListenerURL: ' tcp://g.example.com:12201 ' })).toEqual({
      DiscoverIP: true,
      DiscoverIPURL: 'https://ip.example.com',
      DebugMode: true,
      GELFListenerURL: 'tcp://g.example.com:12201',
      KioskSessionDuration: 15,
    });
  });

  it('sends the unattested trust and the dual-stack URLs only from the IP discovery section', () => {
    const other = configBody(RECORD, { KioskSessionDuration: 30 });
    expect(other).not.toHaveProperty('DiscoverIPTrustUnattested');
    expect(other).not.toHaveProperty('DiscoverIPv4URL');
    expect(other).not.toHaveProperty('DiscoverIPv6URL');
    expect(
      configBody(RECORD, { DiscoverIPv4URL: '', DiscoverIPv6URL: ' http://v6.portal.example.com ' }),
    ).toMatchObject({
      DiscoverIPv4URL: '',
      DiscoverIPv6URL: 'http://v6.portal.example.com',
    });
    expect(configBody(RECORD, { DiscoverIPTrustUnattested: false })).toMatchObject({
      DiscoverIPTrustUnattested: false,
    });
  });
});

describe('customiseBody', () => {
  it('leaves unchanged logos out', () => {
    expect(customiseBody(RECORD, { NewUserDashboard: false })).toEqual({
      Accent: 'grape',
      HighAccessibility: false,
      NewUserDashboard: false,
    });
  });

  it('sends a new logo and a removed one as null', () => {
    expect(customiseBody(RECORD, { Logo: '', LightModeLogo: 'data:image/jpeg;base64,BBBB' })).toMatchObject({
      Logo: null,
      LightModeLogo: 'data:image/jpeg;base64,BBBB',
    });
  });
});

describe('authenticationBody', () => {
  const SETTINGS: AuthenticationSettings = {
    SAMLMetadataURL: '',
    SAMLMetadataFileSet: true,
    SAMLKeyFileSet: true,
    SAMLCertFileSet: true,
    SAMLCert: 'CERT',
    AdminSAMLMetadataURL: '',
    AdminSAMLMetadataFileSet: false,
    AdminSAMLKeyFileSet: false,
    AdminSAMLCertFileSet: false,
    AdminSAMLCert: '',
    PublicURL: 'https://postern.example.com',
    LDAPURL: '',
    LDAPStartTLS: false,
    LDAPSkipVerifyTLS: false,
    UserSAMLConfigured: true,
    AdminSAMLConfigured: false,
    ...oidcAuthenticationDefaults(),
    ...passkeySettingsDefaults(),
  };

  it('sends no file fields when no file was touched', () => {
    expect(authenticationBody(authenticationValues(SETTINGS))).toEqual({
      SAMLMetadataURL: '',
      AdminSAMLMetadataURL: '',
      PublicURL: 'https://postern.example.com',
      LDAPURL: '',
      LDAPStartTLS: false,
      LDAPSkipVerifyTLS: false,
      ...oidcBodyDefaults(),
      ...passkeyBodyDefaults(),
    });
  });

  it('sends both passkey switches as the form holds them', () => {
    const values = { ...authenticationValues(SETTINGS), UserPasskeySignIn: false, AdminPasskeySignIn: true };
    expect(authenticationBody(values)).toMatchObject({ UserPasskeySignIn: false, AdminPasskeySignIn: true });
  });

  it('sends a chosen file with Set and a removed one with Remove', () => {
    const values = {
      ...authenticationValues(SETTINGS),
      AdminSAMLMetadataFile: { fileName: 'idp.xml', content: '<xml/>', remove: false },
      SAMLKeyFile: { ...UNCHANGED_FILE, remove: true },
    };
    expect(authenticationBody(values)).toMatchObject({
      AdminSAMLMetadataFile: '<xml/>',
      AdminSAMLMetadataFileSet: true,
      SAMLKeyFileRemove: true,
    });
    expect(authenticationBody(values)).not.toHaveProperty('SAMLKeyFile');
  });

  it('starts with no client secret in the form, even when one is stored', () => {
    const values = authenticationValues({ ...SETTINGS, OIDCClientSecretSet: true, AdminOIDCClientSecretSet: true });
    expect(values).toMatchObject({
      OIDCClientSecret: '',
      OIDCClientSecretRemove: false,
      AdminOIDCClientSecret: '',
      AdminOIDCClientSecretRemove: false,
    });
    const body = authenticationBody(values);
    for (const field of [
      'OIDCClientSecret',
      'OIDCClientSecretRemove',
      'AdminOIDCClientSecret',
      'AdminOIDCClientSecretRemove',
    ]) {
      expect(body).not.toHaveProperty(field);
    }
  });

  it('sends the OpenID Connect texts trimmed and a typed client secret of that realm only', () => {
    const body = authenticationBody({
      ...authenticationValues(SETTINGS),
      OIDCIssuerURL: ' https://idp.example.com/realms/postern ',
      OIDCUserNameClaim: '',
      OIDCScopes: ' openid email ',
      OIDCClientSecret: ' s3cret ',
    });
    expect(body).toMatchObject({
      OIDCIssuerURL: 'https://idp.example.com/realms/postern',
      // '' puts the default back on the server: it is sent, not left out.
      OIDCUserNameClaim: '',
      OIDCScopes: 'openid email',
      OIDCClientSecret: 's3cret',
      AdminOIDCIssuerURL: '',
      AdminOIDCUserNameClaim: 'preferred_username',
    });
    expect(body).not.toHaveProperty('OIDCClientSecretRemove');
    expect(body).not.toHaveProperty('AdminOIDCClientSecret');
  });

  it('sends a secret removal only when no new secret was typed', () => {
    const values = { ...authenticationValues(SETTINGS), AdminOIDCClientSecretRemove: true };
    expect(authenticationBody(values)).toMatchObject({ AdminOIDCClientSecretRemove: true });
    expect(authenticationBody(values)).not.toHaveProperty('AdminOIDCClientSecret');

    const replaced = authenticationBody({ ...values, AdminOIDCClientSecret: 'new' });
    expect(replaced).toMatchObject({ AdminOIDCClientSecret: 'new' });
    expect(replaced).not.toHaveProperty('AdminOIDCClientSecretRemove');
    // Spaces alone are no secret: the stored one is removed as asked.
    expect(authenticationBody({ ...values, AdminOIDCClientSecret: '  ' })).toMatchObject({
      AdminOIDCClientSecretRemove: true,
    });
  });
});
