import { describe, expect, it } from 'vitest';
import type { AuthenticationSettings, SettingsRecord } from '@postern/protocol';
import { authenticationBody, authenticationValues, configBody, customiseBody, UNCHANGED_FILE } from './settings-values';
import { oidcAuthenticationDefaults } from '@/test-support/records/settings';

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
  };

  it('sends no file fields when no file was touched', () => {
    expect(authenticationBody(authenticationValues(SETTINGS))).toEqual({
      SAMLMetadataURL: '',
      AdminSAMLMetadataURL: '',
      PublicURL: 'https://postern.example.com',
      LDAPURL: '',
      LDAPStartTLS: false,
      LDAPSkipVerifyTLS: false,
    });
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
});
