import { describe, expect, it } from 'vitest';
import { KIOSK_SESSION_MINUTES_DEFAULT } from '@postern/protocol';
import { useTestStore } from '../test-support/use-test-store.js';
import { bothStores } from '../test-support/store-kinds.js';
import { readSetting, readSettings, writeSetting } from './settings.js';

describe.each(bothStores())('settings store (%s)', (kind) => {
  const t = useTestStore(kind);

  it('reads defaults from an empty store', async () => {
    expect(await readSettings(t.store.db)).toEqual({
      Accent: 'grape',
      HighAccessibility: false,
      NewUserDashboard: true,
      DiscoverIP: false,
      DiscoverIPURL: '',
      DiscoverIPv4URL: '',
      DiscoverIPv6URL: '',
      DiscoverIPTrustUnattested: false,
      KioskSessionDuration: KIOSK_SESSION_MINUTES_DEFAULT,
      DebugMode: false,
      GELFListenerURL: '',
      License: '',
      Logo: '',
      LightModeLogo: '',
      LDAPURL: '',
      LDAPStartTLS: false,
      LDAPSkipVerifyTLS: false,
      PublicURL: '',
      SAMLMetadataURL: '',
      SAMLMetadataFile: '',
      SAMLKeyFile: '',
      SAMLCertFile: '',
      AdminSAMLMetadataURL: '',
      AdminSAMLMetadataFile: '',
      AdminSAMLKeyFile: '',
      AdminSAMLCertFile: '',
      ...Object.fromEntries(
        ['', 'Admin'].flatMap((p) => [
          [`${p}OIDCIssuerURL`, ''],
          [`${p}OIDCClientID`, ''],
          [`${p}OIDCClientSecret`, ''],
          [`${p}OIDCDisplayName`, ''],
          [`${p}OIDCUserNameClaim`, 'preferred_username'],
          [`${p}OIDCGroupsClaim`, 'groups'],
          [`${p}OIDCScopes`, 'openid profile email groups'],
        ]),
      ),
      UserPasskeySignIn: true,
      AdminPasskeySignIn: false,
    });
  });

  it('keeps the last value written', async () => {
    await writeSetting(t.store.db, 'KioskSessionDuration', 30, 1);
    await writeSetting(t.store.db, 'KioskSessionDuration', 45, 2);
    expect((await readSettings(t.store.db)).KioskSessionDuration).toBe(45);
  });

  it('falls back to the default for a stored value that no longer parses', async () => {
    await t.store.db
      .insertInto('settings')
      .values([
        { key: 'Accent', value: '"chartreuse"', updatedAt: 1 },
        { key: 'KioskSessionDuration', value: 'not json', updatedAt: 1 },
        { key: 'HighAccessibility', value: 'true', updatedAt: 1 },
      ])
      .execute();
    const settings = await readSettings(t.store.db);
    expect(settings.Accent).toBe('grape');
    expect(settings.KioskSessionDuration).toBe(KIOSK_SESSION_MINUTES_DEFAULT);
    expect(settings.HighAccessibility).toBe(true);
  });

  it('reads one setting: the stored value, the default when absent or unparsable', async () => {
    expect(await readSetting(t.store.db, 'License')).toBe('');
    await writeSetting(t.store.db, 'License', 'PSTN1.abc.def', 1);
    expect(await readSetting(t.store.db, 'License')).toBe('PSTN1.abc.def');
    await t.store.db.insertInto('settings').values({ key: 'Accent', value: '"chartreuse"', updatedAt: 1 }).execute();
    expect(await readSetting(t.store.db, 'Accent')).toBe('grape');
    expect(await readSetting(t.store.db, 'KioskSessionDuration')).toBe(KIOSK_SESSION_MINUTES_DEFAULT);
  });
});
