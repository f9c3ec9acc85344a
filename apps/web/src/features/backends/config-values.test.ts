import { describe, expect, it } from 'vitest';
import { RECORDED } from '@postern/protocol';
import {
  aclConfigForRequest,
  aclConfigValues,
  backendConfigForRequest,
  backendConfigValues,
  envVarsForDeclarations,
  secretsToReenter,
} from './config-values';

const STORED_PANOS = {
  Hostname: 'pan-a',
  Insecure: false,
  ApiKey: RECORDED,
  VSys: 'vsys2',
  DeviceGroup: '',
  MapUser: true,
};

describe('backend config values', () => {
  it('start an edited backend from the stored fields with every secret empty', () => {
    expect(backendConfigValues('panos', STORED_PANOS)).toEqual({ ...STORED_PANOS, ApiKey: '' });
  });

  it('send an untouched secret back as RECORDED on update, and a typed one as typed', () => {
    const values = { ...STORED_PANOS, ApiKey: '' };
    expect(backendConfigForRequest('panos', values, 'update').ApiKey).toBe(RECORDED);
    expect(backendConfigForRequest('panos', { ...values, ApiKey: 'k2' }, 'update').ApiKey).toBe('k2');
    expect(backendConfigForRequest('panos', values, 'create').ApiKey).toBe('');
  });

  it('ask for the secrets again when the address changed and they were left as stored', () => {
    const moved = { ...STORED_PANOS, Hostname: 'pan-b', ApiKey: '' };
    expect(secretsToReenter('panos', STORED_PANOS, moved)).toEqual(['ApiKey']);
    expect(secretsToReenter('panos', STORED_PANOS, { ...moved, ApiKey: 'new' })).toEqual([]);
    expect(secretsToReenter('panos', STORED_PANOS, { ...STORED_PANOS, ApiKey: '' })).toEqual([]);
    expect(
      secretsToReenter('fortios', { Url: 'https://a', Bearer: RECORDED }, { Url: 'https://b', Bearer: '' }),
    ).toEqual(['Bearer']);
    expect(secretsToReenter('aws', { Region: 'a' }, { Region: 'b', SecretAccessKey: '' })).toEqual([]);
  });

  it("ask for a webhook's secret when its URL changed, but never for one a script does not have", () => {
    const webhook = { Command: 'https://hooks.example.com/a', EnvVars: [], WebhookSecret: RECORDED };
    const moved = { ...webhook, Command: 'https://hooks.example.com/b', WebhookSecret: '' };
    expect(secretsToReenter('script', webhook, moved)).toEqual(['WebhookSecret']);
    const program = { Command: 'open.sh', EnvVars: [], WebhookSecret: '' };
    expect(secretsToReenter('script', program, { ...program, Command: 'close.sh' })).toEqual([]);
    expect(secretsToReenter('script', { Command: 'open.sh', EnvVars: [] }, { Command: 'close.sh' })).toEqual([]);
  });
});

describe('the managed rule in the request', () => {
  it('is omitted while off, on create and on update', () => {
    const off = { Family: 'inet', Table: 'postern', ManagedRule: undefined };
    expect(backendConfigForRequest('nftables', off, 'create')).toEqual({ Family: 'inet', Table: 'postern' });
    expect(backendConfigForRequest('nftables', off, 'create')).not.toHaveProperty('ManagedRule');
    expect(backendConfigForRequest('ipset', { ManagedRule: undefined }, 'update')).not.toHaveProperty('ManagedRule');
  });

  it('is sent as its chain and ports while on', () => {
    const on = { ManagedRule: { Chain: 'INPUT', Ports: [22, 443] } };
    expect(backendConfigForRequest('ipset', on, 'create')).toEqual(on);
    expect(backendConfigForRequest('ipset', on, 'update')).toEqual(on);
  });

  it('starts a stored rule switched on, and a stored backend without one switched off', () => {
    expect(backendConfigValues('ipset', { ManagedRule: { Chain: 'FORWARD', Ports: [22] } })).toEqual({
      ManagedRule: { Chain: 'FORWARD', Ports: [22] },
    });
    expect(backendConfigValues('nftables', { Family: 'ip', Table: 'filter' }).ManagedRule).toBeUndefined();
  });
});

describe('knoc config values', () => {
  it('leave a stored sensitive value empty, so that it is kept', () => {
    const stored = {
      Name: 'deploy',
      EnvVars: [
        { Name: 'TOKEN', Value: RECORDED, Sensitive: true, Encrypted: true },
        { Name: 'REGION', Value: 'eu', Sensitive: false, Encrypted: false },
      ],
    };
    expect(aclConfigValues('script', stored).EnvVars).toEqual([
      { Name: 'TOKEN', Value: '', Sensitive: true, Encrypted: true },
      { Name: 'REGION', Value: 'eu', Sensitive: false, Encrypted: false },
    ]);
  });

  it('show a numeric HAProxy ACL id as text', () => {
    expect(aclConfigValues('haproxy', { ID: 7 })).toEqual({ ID: '7' });
  });

  it('make one variable per declaration, keeping values entered for its name', () => {
    const current = [
      { Name: 'TOKEN', Value: 'x', Sensitive: true, Encrypted: false },
      { Name: 'GONE', Value: 'y', Sensitive: false, Encrypted: false },
    ];
    expect(
      envVarsForDeclarations(
        [
          { Name: 'TOKEN', Sensitive: true },
          { Name: 'REGION', Sensitive: false },
        ],
        current,
      ),
    ).toEqual([
      { Name: 'TOKEN', Value: 'x', Sensitive: true, Encrypted: false },
      { Name: 'REGION', Value: '', Sensitive: false, Encrypted: false },
    ]);
  });

  it('drop variables without a name from the request', () => {
    const values = { Name: '', EnvVars: [{ Name: ' ', Value: '', Sensitive: false, Encrypted: false }] };
    expect(aclConfigForRequest(values)).toEqual({ Name: '', EnvVars: [] });
  });
});
