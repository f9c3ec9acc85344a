import { screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ApiKeyListResponse, KnocWizardCreateResponse } from '@postern/protocol';
import { agentCapabilities, agentRecord } from '@/test-support/records/agents';
import { apiKey } from '@/test-support/records/api-keys';
import { knocRecord } from '@/test-support/fixtures';
import { knocFieldsBody } from '@/test-support/records/knoc-wizard';
import { currentPath } from '@/test-support/render-app';
import { data } from '@/test-support/typed-fake-api';
import {
  FRESH,
  next,
  openWizard,
  pick,
  select,
  selectNamed,
  stepHeading,
  summary,
} from '@/test-support/screens/knoc-wizard';

const PATH = '/admin/knocs/new/application';
const PLAINTEXT = 'pst_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const ALLOWLIST_URL = 'https://postern.example.net/api/v1/allowlists/k-new/tok.txt';
/** An agent that can drive the firewalls (FRESH, never connected, cannot). */
const FIREWALL_AGENT = agentRecord({
  Name: 'fw-agent',
  Capabilities: agentCapabilities({ backend_types: ['fortios', 'panos'] }),
});

function created(secrets: {
  ApiKey?: { ID: string; Name: string; PlaintextKey: string } | null;
  AllowlistURL?: string | null;
}) {
  return data(KnocWizardCreateResponse, {
    KnocID: 'k-new',
    ApiKey: secrets.ApiKey ?? null,
    AllowlistURL: secrets.AllowlistURL ?? null,
    Knoc: knocRecord({ ID: 'k-new' }),
  });
}

function open(answer: ReturnType<typeof created>) {
  return openWizard(
    PATH,
    {
      'GET /api/admin/api-keys': data(ApiKeyListResponse, [apiKey({ ID: 'key-1', Name: 'ci-pipeline' })]),
      'POST /api/admin/knocs': answer,
    },
    [FIREWALL_AGENT, FRESH],
  );
}

/** The fieldset of this legend on the settings step. */
const group = (name: string) => within(screen.getByRole('group', { name }));

async function fillSettings(user: UserEvent, type: string, description: string) {
  await stepHeading('Settings');
  await user.click(screen.getByRole('radio', { name: type }));
  await user.type(screen.getByRole('textbox', { name: /^Name/ }), description);
}

async function submit(user: UserEvent) {
  await user.click(screen.getByRole('button', { name: 'Create knoc' }));
}

describe('application wizard', { timeout: 40_000 }, () => {
  it('creates a passive allowlist with a new key and shows the key and the URL before leaving', async () => {
    const answer = created({
      ApiKey: { ID: 'key-new', Name: 'pan key', PlaintextKey: PLAINTEXT },
      AllowlistURL: ALLOWLIST_URL,
    });
    const { api, user } = open(answer);
    await fillSettings(user, 'Passive', 'Partner firewall');
    // The agent step is not part of a passive knoc's way.
    expect(screen.getAllByText('Not used for this kind of knoc')).toHaveLength(1);
    expect(screen.queryByRole('group', { name: /connection/ })).toBeNull();
    await next(user, 'Knoc options');
    // Description and URL were asked for on the settings step.
    expect(screen.queryByRole('textbox', { name: /^Name/ })).toBeNull();
    await next(user, 'API key');
    await user.type(screen.getByRole('textbox', { name: /^API key name/ }), 'pan key');
    await next(user, 'Users and groups');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('API key');
    await next(user, 'Users and groups');
    await select(user, 'Ada Lovelace');
    await next(user, 'Review');
    expect(summary('API key').getByText(/A new API key "pan key", allowed from 0\.0\.0\.0\/0, ::\/0/)).toBeVisible();
    expect(screen.queryByRole('region', { name: 'Agent' })).toBeNull();
    expect(api.calls('POST /api/admin/knocs')).toHaveLength(0);

    await submit(user);
    const dialog = await screen.findByRole('dialog', { name: 'Knoc created' });
    expect(dialog).toHaveTextContent(PLAINTEXT);
    expect(dialog).toHaveTextContent(ALLOWLIST_URL);
    expect(currentPath()).toBe(PATH);
    expect(api.calls('POST /api/admin/knocs').map((call) => call.body)).toEqual([
      {
        Backend: { Name: 'Partner firewall', Config: { allowlist: {} } },
        ApiKey: {
          Option: 'new',
          Name: 'pan key',
          AllowedFrom: [
            { Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' },
            { Prefix: '::/0', Note: 'Anywhere (IPv6)' },
          ],
        },
        Knoc: {
          ...knocFieldsBody({ Description: 'Partner firewall' }),
          Config: { allowlist: { AllowAccessByIp: false, AllowedIpAddresses: [] } },
        },
        UserIDs: ['u-ada'],
        GroupIDs: [],
      },
    ]);
    // The dialog's own Close button (its corner's close icon has the same name).
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1)!);
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs'));
  });

  it('creates a passive+ knoc on Palo Alto with its refresh backend on the agent', async () => {
    const { api, user } = open(created({ AllowlistURL: ALLOWLIST_URL }));
    await fillSettings(user, 'Passive+', 'Branch EDL');
    expect(selectNamed('Vendor')).toHaveValue('Palo Alto');
    expect(selectNamed('Vendor')).toBeDisabled();
    const connection = group('Palo Alto connection');
    await user.type(connection.getByRole('textbox', { name: /^Hostname/ }), 'pan.example.net');
    await user.type(connection.getByLabelText(/^API key/), 'pan-secret');
    // Without the EDL name the step stays, saying what is missing.
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await group('Palo Alto rule').findByText('This field is required')).toBeVisible();
    expect(screen.getByRole('heading', { level: 2, name: 'Settings' })).toBeVisible();
    await user.type(
      group('Palo Alto rule').getByRole('textbox', { name: /^External dynamic list name/ }),
      'postern-edl',
    );
    await next(user, 'Knoc options');
    await next(user, 'API key');
    await user.click(screen.getByRole('radio', { name: 'No API key' }));
    await user.type(screen.getByRole('textbox', { name: 'Address range 1' }), '203.0.113.0/24');
    await next(user, 'Agent');
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('fw-agent'));
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('API key');
    await next(user, 'Agent');
    await next(user, 'Users and groups');
    await next(user, 'Review');
    // The secret typed on the settings step is masked until the admin asks to check it.
    expect(summary('Settings').queryByText('pan-secret')).toBeNull();
    await user.click(summary('Settings').getByRole('button', { name: 'Show API key' }));
    expect(summary('Settings').getByText('pan-secret')).toBeVisible();
    expect(summary('API key').getByText('No API key; readable from 203.0.113.0/24')).toBeVisible();
    expect(api.calls('POST /api/admin/knocs')).toHaveLength(0);

    await submit(user);
    expect(await screen.findByRole('dialog', { name: 'Knoc created' })).toHaveTextContent(ALLOWLIST_URL);
    expect(api.calls('POST /api/admin/knocs').map((call) => call.body)).toEqual([
      {
        Backend: { Name: 'Branch EDL', Config: { allowlist: {} } },
        ApiKey: { Option: 'none' },
        Knoc: {
          ...knocFieldsBody({ Description: 'Branch EDL' }),
          Config: { allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] } },
        },
        PassivePlus: {
          Backend: {
            Name: 'Branch EDL (EDL refresh)',
            AgentID: FIREWALL_AGENT.ID,
            Config: {
              panos: {
                Hostname: 'pan.example.net',
                Insecure: false,
                ApiKey: 'pan-secret',
                VSys: 'vsys1',
                DeviceGroup: '',
                MapUser: false,
              },
            },
          },
          Config: { panos: { GroupName: '', EDLName: 'postern-edl', MapUser: false, SerialNumber: '' } },
        },
        UserIDs: [],
        GroupIDs: [],
      },
    ]);
  });

  it('offers vendors without a driver for active knocs, continuing in the script wizard with their script', async () => {
    const { user } = open(created({}));
    await fillSettings(user, 'Passive', 'Branch');
    await user.click(selectNamed('Vendor'));
    expect(screen.queryByRole('option', { name: 'Juniper', hidden: true })).toBeNull();
    await user.click(screen.getByRole('radio', { name: 'Active' }));
    await pick(user, 'Vendor', 'Juniper');
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs/new/script?vendor=juniper'));
    expect(await screen.findByRole('alert', { name: 'Juniper through a script' })).toBeVisible();
    await stepHeading('Agent');
  });

  it('creates an active Fortinet knoc driven by the agent and shows it in the list', async () => {
    const { api, user } = open(created({}));
    await fillSettings(user, 'Active', 'Office VPN');
    // The API key step is not part of an active knoc's way.
    expect(screen.getAllByText('Not used for this kind of knoc')).toHaveLength(1);
    expect(selectNamed('Vendor')).toHaveValue('Fortinet');
    const connection = group('Fortinet connection');
    await user.type(connection.getByRole('textbox', { name: /^URL/ }), 'https://fw.example.net');
    await user.type(connection.getByLabelText(/^API token/), 'forti-token');
    await user.type(group('Fortinet rule').getByRole('textbox', { name: /^Address group name/ }), 'postern');
    await next(user, 'Knoc options');
    // Active has no API key step: Next goes to the agent, Back comes back to the options.
    await next(user, 'Agent');
    await user.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('Knoc options');
    await next(user, 'Agent');
    await waitFor(() => expect(selectNamed('Agent')).toHaveDisplayValue('fw-agent'));
    await next(user, 'Users and groups');
    await select(user, 'Operations');
    await next(user, 'Review');
    expect(summary('Agent').getByText('fw-agent')).toBeVisible();
    expect(screen.queryByRole('region', { name: 'API key' })).toBeNull();
    expect(api.calls('POST /api/admin/knocs')).toHaveLength(0);

    await submit(user);
    await waitFor(() => expect(currentPath()).toBe('/admin/knocs?viewKnocId=k-new'));
    expect(api.calls('POST /api/admin/knocs').map((call) => call.body)).toEqual([
      {
        Backend: {
          Name: 'Office VPN',
          AgentID: FIREWALL_AGENT.ID,
          Config: {
            fortios: { Url: 'https://fw.example.net', Insecure: false, Bearer: 'forti-token', Prefix: 'kk_', VDOM: '' },
          },
        },
        ApiKey: { Option: 'none' },
        Knoc: { ...knocFieldsBody({ Description: 'Office VPN' }), Config: { fortios: { Name: 'postern' } } },
        UserIDs: [],
        GroupIDs: ['g-ops'],
      },
    ]);
  });

  it('reuses an existing key, with Next disabled until one is chosen', async () => {
    const { api, user } = open(created({ AllowlistURL: ALLOWLIST_URL }));
    await fillSettings(user, 'Passive', 'Partner firewall');
    await next(user, 'Knoc options');
    await next(user, 'API key');
    await user.click(screen.getByRole('radio', { name: 'Existing API key' }));
    const keys = await screen.findByRole('table', { name: 'API keys' });
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    await user.click(within(keys).getByRole('radio', { name: 'Choose the API key ci-pipeline' }));
    await next(user, 'Users and groups');
    await next(user, 'Review');
    expect(summary('API key').getByText('The existing API key "ci-pipeline"')).toBeVisible();
    await submit(user);
    expect(await screen.findByRole('dialog', { name: 'Knoc created' })).toHaveTextContent(ALLOWLIST_URL);
    expect(api.calls('POST /api/admin/knocs').map((call) => (call.body as { ApiKey: unknown }).ApiKey)).toEqual([
      { Option: 'existing', ID: 'key-1' },
    ]);
  });
});
