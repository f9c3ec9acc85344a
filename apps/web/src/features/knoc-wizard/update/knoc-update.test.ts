import { describe, expect, it } from 'vitest';
import { KnocWizardUpdateBody, RECORDED } from '@postern/protocol';
import { knocRecord } from '@/test-support/fixtures';
import { secretsToAskFor, toUpdateInput, updateValuesFromKnoc } from './knoc-update';
import {
  allowlistByAddressKnoc,
  fortiosKnoc,
  knocFieldsBody,
  PASSIVE_PLUS_CHILD,
  PASSIVE_PLUS_PARENT,
} from '@/test-support/records/knoc-wizard';

describe('update values', () => {
  it('reads minutes from seconds, an empty duration for none, and keeps RFC1918 ranges', () => {
    const rfc = {
      RestrictionType: 'RFC1918' as const,
      RfcType: 'deny' as const,
      Ranges: [{ Start: '10.0.0.0', End: '10.255.255.255' }],
    };
    const values = updateValuesFromKnoc(knocRecord({ MaximumGrantDuration: 300, IpExclusions: rfc }));
    expect(values.options).toMatchObject({
      MaximumGrantMinutes: 5,
      IpExclusions: rfc,
      Description: 'Billing database',
    });
    expect(updateValuesFromKnoc(knocRecord()).options.MaximumGrantMinutes).toBe('');
  });

  it('sends the knoc back unchanged when nothing was edited', () => {
    const knoc = knocRecord({
      AclConfig: { ipset: { V4SetName: 'set4', V6SetName: '' } },
      BackendConfig: { ipset: {} },
      UserIDs: ['u-1'],
      GroupIDs: ['g-1'],
      MaximumGrantDuration: 600,
    });
    expect(toUpdateInput(knoc, updateValuesFromKnoc(knoc))).toEqual({
      Backend: { ID: 'b-1', Name: 'edge ipset', AgentID: 'agent-1', Config: { ipset: {} } },
      Knoc: {
        ID: 'k-db',
        ...knocFieldsBody({ Description: 'Billing database', MaximumGrantDuration: 600 }),
        Config: { ipset: { V4SetName: 'set4', V6SetName: '' } },
      },
      UserIDs: ['u-1'],
      GroupIDs: ['g-1'],
    });
  });
});

describe('update values of an nftables knoc', () => {
  const knoc = knocRecord({
    BackendType: 'nftables',
    AclConfig: { nftables: { V4SetName: 'allow4', V6SetName: '' } },
    BackendConfig: { nftables: { Family: 'inet', Table: 'postern', ManagedRule: { Chain: 'input', Ports: [22] } } },
  });

  it('sends the table and the stored managed rule back unchanged', () => {
    const body = toUpdateInput(knoc, updateValuesFromKnoc(knoc));
    expect(body.Backend.Config).toEqual({
      nftables: { Family: 'inet', Table: 'postern', ManagedRule: { Chain: 'input', Ports: [22] } },
    });
    expect(body.Knoc.Config).toEqual({ nftables: { V4SetName: 'allow4', V6SetName: '' } });
    expect(KnocWizardUpdateBody.safeParse(body).success).toBe(true);
  });

  it('leaves the managed rule out once it is switched off', () => {
    const values = updateValuesFromKnoc(knoc);
    const off = {
      ...values,
      settings: { ...values.settings, Backend: { ...values.settings.Backend, ManagedRule: undefined } },
    };
    expect(toUpdateInput(knoc, off).Backend.Config).toEqual({ nftables: { Family: 'inet', Table: 'postern' } });
    expect(toUpdateInput(knoc, off).Backend.Config.nftables).not.toHaveProperty('ManagedRule');
  });
});

describe('update values of a vendor knoc', () => {
  it('shows a stored secret empty and sends it back as RECORDED, kept as stored', () => {
    const knoc = fortiosKnoc();
    const values = updateValuesFromKnoc(knoc);
    expect(values.settings.Backend).toMatchObject({ Url: 'https://fw.example.net', Bearer: '', VDOM: 'root' });
    expect(toUpdateInput(knoc, values).Backend.Config).toEqual({
      fortios: { Url: 'https://fw.example.net', Insecure: false, Bearer: RECORDED, Prefix: 'kk_', VDOM: 'root' },
    });
  });

  it('sends a newly typed secret as typed', () => {
    const knoc = fortiosKnoc();
    const values = updateValuesFromKnoc(knoc);
    const typed = {
      ...values,
      settings: { ...values.settings, Backend: { ...values.settings.Backend, Bearer: 'new' } },
    };
    expect(toUpdateInput(knoc, typed).Backend.Config).toMatchObject({ fortios: { Bearer: 'new' } });
  });

  it('asks for the secrets again only when the address changed and no new secret was typed', () => {
    const knoc = fortiosKnoc();
    const settings = updateValuesFromKnoc(knoc).settings;
    const moved = { ...settings, Backend: { ...settings.Backend, Url: 'https://fw2.example.net' } };
    expect(secretsToAskFor(knoc, settings)).toEqual([]);
    expect(secretsToAskFor(knoc, moved)).toEqual(['Bearer']);
    expect(secretsToAskFor(knoc, { ...moved, Backend: { ...moved.Backend, Bearer: 'fresh' } })).toEqual([]);
  });

  it("keeps an allowlist's token and key and sends back its allowed addresses", () => {
    const knoc = allowlistByAddressKnoc();
    expect(toUpdateInput(knoc, updateValuesFromKnoc(knoc)).Knoc.Config).toEqual({
      allowlist: { Token: 'tok-123', ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['192.0.2.0/24'] },
    });
  });

  it('makes bodies the server accepts for vendor, allowlist and passive+ knocs', () => {
    const bodies = [
      toUpdateInput(fortiosKnoc(), updateValuesFromKnoc(fortiosKnoc())),
      toUpdateInput(allowlistByAddressKnoc(), updateValuesFromKnoc(allowlistByAddressKnoc())),
      toUpdateInput(PASSIVE_PLUS_CHILD, updateValuesFromKnoc(PASSIVE_PLUS_CHILD, PASSIVE_PLUS_PARENT)),
    ];
    for (const body of bodies) expect(KnocWizardUpdateBody.safeParse(body).error).toBeUndefined();
  });

  it("shows a passive+ firewall knoc with its parent's options and members", () => {
    const values = updateValuesFromKnoc(PASSIVE_PLUS_CHILD, PASSIVE_PLUS_PARENT);
    expect(values.options).toMatchObject({ HideFromUsers: false, ClickToGrant: false });
    expect(values.members).toEqual({ userIds: ['u-ada'], groupIds: ['g-ops'] });
    expect(values.settings.Acl).toMatchObject({ EDLName: 'postern-edl' });
    expect(values.settings.Backend).toMatchObject({ Hostname: 'pan.example.net', ApiKey: '' });
  });
});
