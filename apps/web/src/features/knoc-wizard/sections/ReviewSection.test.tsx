import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BACKEND_TYPES, type BackendType } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { renderUi } from '@/test-support/render-ui';
import { agentRecord } from '@/test-support/records/agents';
import { defaultKnocOptions } from './knoc-options';
import { configReviewRows } from './review-config';
import { ReviewSection } from './ReviewSection';
import { defaultSettings, type SettingsValues } from './settings';

/** Text that only a missing translation or an unformatted value puts on a screen. */
const RAW_KEY = /\b(backendsScreen|knocWizard|knocWizardApplication)\.[\w.]+/;
const RAW_VALUE = /^(true|false|null|undefined|\[\]|\{\}|\[object Object\])$/;

function renderReview(settings: SettingsValues) {
  return renderUi(
    <ReviewSection
      settings={settings}
      options={{ ...defaultKnocOptions(), Description: 'Review check' }}
      agent={null}
      users={[]}
      groups={[]}
      members={{ userIds: [], groupIds: [] }}
    />,
  );
}

/** The Settings card's rows as [label, value] texts. */
function settingsRows(title: string): [string, string][] {
  const card = screen.getByRole('region', { name: title });
  return within(card)
    .getAllByRole('row')
    .map((row) => [
      within(row).getByRole('rowheader').textContent ?? '',
      within(row).getByRole('cell').textContent ?? '',
    ]);
}

/** Each type as a new knoc of it starts (the wizards' defaults), and with every field filled. */
const filled: Partial<Record<BackendType, SettingsValues>> = {
  allowlist: {
    Type: 'allowlist',
    Backend: {},
    Acl: { Token: 'tok-secret', ApiKeyId: 'key-1', AllowAccessByIp: true, AllowedIpAddresses: ['192.0.2.0/24'] },
  },
  firepower: {
    Type: 'firepower',
    Backend: {
      Hostname: 'fmc.example.com',
      Insecure: true,
      Username: 'api',
      Password: 'hunter2',
      Domain: '',
      Deploy: 'manual',
    },
    Acl: { GroupUUID: '0050-56' },
  },
};

describe.each(['en', 'de'] as const)('the review’s Settings card in %s', (language) => {
  const title = language === 'en' ? 'Settings' : 'Einstellungen';

  it.each(BACKEND_TYPES)(
    'shows a new %s knoc’s settings labelled, in words, with no raw key or value',
    async (type) => {
      await i18n.changeLanguage(language);
      renderReview(defaultSettings(type, null));
      for (const [label, value] of settingsRows(title)) {
        expect(label, `${type} label`).not.toMatch(RAW_KEY);
        expect(label.trim(), `${type} label`).not.toBe('');
        expect(value, `${type} ${label}`).not.toMatch(RAW_KEY);
        expect(value, `${type} ${label}`).not.toMatch(RAW_VALUE);
      }
    },
  );

  it('shows an nftables knoc’s family, table, sets and managed rule in words', async () => {
    await i18n.changeLanguage(language);
    renderReview({
      Type: 'nftables',
      Backend: { Family: 'ip6', Table: 'postern', ManagedRule: { Chain: 'input', Ports: [22, 443] } },
      Acl: { V4SetName: '', V6SetName: 'allow6' },
    });
    const rows = Object.fromEntries(settingsRows(title));
    const texts =
      language === 'en'
        ? { family: 'Family', table: 'Table', rule: 'End live connections', v6: 'IPv6 set' }
        : { family: 'Familie', table: 'Tabelle', rule: 'Offene Verbindungen beenden', v6: 'IPv6-Set' };
    expect(rows[texts.family]).toBe(i18n.t('backendsScreen.options.ip6'));
    expect(rows[texts.table]).toBe('postern');
    expect(rows[texts.rule]).toBe(
      language === 'en' ? 'Chain input, TCP ports 22, 443' : 'Chain input, TCP-Ports 22, 443',
    );
    expect(rows[texts.v6]).toBe('allow6');
  });

  it('leaves the allowlist’s token and access out: the API key card says how the list is read', async () => {
    await i18n.changeLanguage(language);
    renderReview(filled.allowlist as SettingsValues);
    const card = screen.getByRole('region', { name: title });
    // Only the type: the server's token never shows, and the key or ranges are the API key card's.
    expect(settingsRows(title)).toHaveLength(1);
    expect(card).not.toHaveTextContent('tok-secret');
    expect(card).not.toHaveTextContent('192.0.2.0/24');
  });

  it('shows a tick box as Yes/No, a choice by its label, an empty field as none, and masks a secret', async () => {
    await i18n.changeLanguage(language);
    const { user } = renderReview(filled.firepower as SettingsValues);
    const rows = Object.fromEntries(settingsRows(title));
    const texts =
      language === 'en'
        ? {
            insecure: 'Skip TLS certificate verification',
            yes: 'Yes',
            domain: 'Domain',
            none: 'None',
            password: 'Password',
          }
        : { insecure: 'TLS-Zertifikat nicht prüfen', yes: 'Ja', domain: 'Domäne', none: 'Keine', password: 'Passwort' };
    expect(rows[texts.insecure]).toBe(texts.yes);
    expect(rows[texts.domain]).toBe(texts.none);
    expect(rows[language === 'en' ? 'Deployment (network groups)' : 'Bereitstellung (Netzwerkgruppen)']).toBe(
      i18n.t('backendsScreen.options.manual'),
    );
    const card = screen.getByRole('region', { name: title });
    expect(card).not.toHaveTextContent('hunter2');
    const show = within(card).getByRole('button', {
      name: i18n.t('knocWizard.review.showSecret', { label: texts.password }),
    });
    await user.click(show);
    expect(card).toHaveTextContent('hunter2');
    expect(show).toHaveAttribute('aria-pressed', 'true');
  });
});

describe('the review’s other cards', () => {
  it('names the IP exclusion and the knoc type in words, not by their codes', () => {
    renderUi(
      <ReviewSection
        settings={{ Type: 'haproxy', Backend: { Protocol: 'unix', Address: '/run/haproxy.sock' }, Acl: { ID: '7' } }}
        options={{
          ...defaultKnocOptions(),
          Description: 'Wiki',
          IpExclusions: { RestrictionType: 'RFC1918', RfcType: 'deny', Ranges: [] },
        }}
        agent={agentRecord({ Version: '1.5.0' })}
        users={[]}
        groups={[]}
        members={{ userIds: [], groupIds: [] }}
      />,
    );
    expect(Object.fromEntries(settingsRows('Knoc options'))['IP exclusions']).toBe('RFC1918 (Deny private addresses)');
    expect(Object.fromEntries(settingsRows('Settings'))['Protocol']).toBe('Unix socket');
    const agent = screen.getByRole('region', { name: 'Agent' });
    expect(agent).toHaveTextContent('The HAProxy knoc type is not compatible');
    expect(agent).not.toHaveTextContent('The haproxy knoc type');
  });
});

describe('configReviewRows', () => {
  it('lists the backend’s fields and then the knoc’s, in form order, without what other steps show', () => {
    const script = configReviewRows('script', { Command: 'notify.sh' }, { Name: 'partner', EnvVars: [] });
    expect(script.map((row) => row.labelKey)).toEqual([
      'backendsScreen.fields.script.Command',
      'backendsScreen.aclFields.script.Name',
    ]);
    const panos = configReviewRows(
      'panos',
      { Hostname: 'pa', Insecure: false, ApiKey: 'k', VSys: 'vsys1', DeviceGroup: '', MapUser: true },
      { GroupName: 'g', EDLName: '', MapUser: false, SerialNumber: '' },
    );
    expect(panos.map((row) => row.value)).toEqual([
      { kind: 'text', text: 'pa' },
      { kind: 'key', key: 'knocWizard.review.no' },
      { kind: 'secret', text: 'k' },
      { kind: 'text', text: 'vsys1' },
      { kind: 'key', key: 'knocWizard.review.none' },
      { kind: 'key', key: 'knocWizard.review.yes' },
      { kind: 'text', text: 'g' },
      { kind: 'key', key: 'knocWizard.review.none' },
      { kind: 'key', key: 'knocWizard.review.no' },
      { kind: 'key', key: 'knocWizard.review.none' },
    ]);
  });

  it('puts every other value in words: numbers and lists as text, a choice by its label, nothing as None', () => {
    const value = (acl: Record<string, unknown>) => configReviewRows('haproxy', {}, acl)[0]?.value;
    expect(value({ ID: 7 })).toEqual({ kind: 'text', text: '7' });
    expect(value({ ID: ['a', 2] })).toEqual({ kind: 'text', text: 'a, 2' });
    for (const nothing of [[], null, undefined, '  ', { nested: true }]) {
      expect(value({ ID: nothing })).toEqual({ kind: 'key', key: 'knocWizard.review.none' });
    }
    expect(configReviewRows('haproxy', { Protocol: 'unix' }, {})).toEqual([
      {
        field: 'Protocol',
        labelKey: 'backendsScreen.fields.haproxy.Protocol',
        value: { kind: 'key', key: 'backendsScreen.options.unix' },
      },
    ]);
  });
});
