import { describe, expect, it } from 'vitest';
import { KnocWizardCreateBody } from '@postern/protocol';
import { initialApiKeyStepValues, type ApiKeyStepValues } from '../sections/api-key-step';
import type { ApplicationSettingsValues } from '../sections/application-settings';
import { toApplicationCreateInput, type ApplicationRequestParts } from './application-request';

const OPTIONS = { Category: 'Default', Icon: 'server', ClickToGrant: true, MaximumGrantDuration: 0 };
const NEW_KEY: ApiKeyStepValues = {
  ...initialApiKeyStepValues(['Anywhere (IPv4)', 'Anywhere (IPv6)']),
  Name: 'pan key',
};

function parts(settings: Partial<ApplicationSettingsValues>, patch: Partial<ApplicationRequestParts> = {}) {
  return {
    settings: {
      ApplicationType: 'passive',
      Vendor: 'fortinet',
      Description: ' Partner firewall ',
      URL: '',
      Backend: {},
      Acl: {},
      ...settings,
    },
    options: OPTIONS,
    apiKey: NEW_KEY,
    agentId: 'agent-1',
    userIds: ['user-1'],
    groupIds: [],
    backendNames: { knoc: 'Partner firewall', refresh: 'Partner firewall (EDL refresh)' },
    ...patch,
  } satisfies ApplicationRequestParts;
}

describe('application create body', () => {
  it('publishes an allowlist without an agent for passive, read with the new key', () => {
    const body = toApplicationCreateInput(parts({}));
    expect(body).toEqual({
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
        ...OPTIONS,
        Description: 'Partner firewall',
        URL: '',
        Config: { allowlist: { AllowAccessByIp: false, AllowedIpAddresses: [] } },
      },
      UserIDs: ['user-1'],
      GroupIDs: [],
    });
    expect(KnocWizardCreateBody.safeParse(body).success).toBe(true);
  });

  it('sends the address restriction in the allowlist config when there is no key', () => {
    const apiKey: ApiKeyStepValues = { ...NEW_KEY, Option: 'none', AllowedIpAddresses: ['203.0.113.0/24', ''] };
    const body = toApplicationCreateInput(parts({}, { apiKey }));
    expect(body.ApiKey).toEqual({ Option: 'none' });
    expect(body.Knoc.Config).toEqual({ allowlist: { AllowAccessByIp: true, AllowedIpAddresses: ['203.0.113.0/24'] } });
  });

  it('adds the PAN-OS refresh backend on the agent and the child config for passive+', () => {
    const panos = {
      Hostname: 'pan.example.net',
      Insecure: false,
      ApiKey: 'secret',
      VSys: 'vsys1',
      DeviceGroup: '',
      MapUser: true,
    };
    const acl = { GroupName: '', EDLName: 'postern-edl', MapUser: true, SerialNumber: '' };
    const body = toApplicationCreateInput(
      parts({ ApplicationType: 'passive+', Vendor: 'palo', Backend: panos, Acl: acl }),
    );
    expect(body.Backend).toEqual({ Name: 'Partner firewall', Config: { allowlist: {} } });
    expect(body.PassivePlus).toEqual({
      Backend: { Name: 'Partner firewall (EDL refresh)', AgentID: 'agent-1', Config: { panos } },
      Config: { panos: acl },
    });
    expect(KnocWizardCreateBody.safeParse(body).success).toBe(true);
  });

  it("drives the vendor's backend on the agent for active, with no key", () => {
    const fortios = { Url: 'https://fw.example.net', Insecure: false, Bearer: 't', Prefix: 'kk_', VDOM: '' };
    const body = toApplicationCreateInput(parts({ ApplicationType: 'active', Backend: fortios, Acl: { Name: 'kk' } }));
    expect(body).toMatchObject({
      Backend: { Name: 'Partner firewall', AgentID: 'agent-1', Config: { fortios } },
      ApiKey: { Option: 'none' },
      Knoc: { Config: { fortios: { Name: 'kk' } } },
    });
    expect(body).not.toHaveProperty('PassivePlus');
    expect(KnocWizardCreateBody.safeParse(body).success).toBe(true);
  });
});
