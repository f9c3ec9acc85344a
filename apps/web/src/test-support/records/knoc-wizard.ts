import { NO_AGENT_ID, RECORDED, type KnocRecord } from '@postern/protocol';
import type { KnocFields } from '@/features/knoc-wizard/sections/knoc-options';
import { knocRecord } from '../fixtures';

/* Test data only: the knoc wizard's request bodies, and knocs as the update wizard reads them back. */

/** The knoc fields a body carries when no option was changed, with `patch` applied. */
export function knocFieldsBody(patch: Partial<KnocFields>): KnocFields {
  return {
    Description: '',
    URL: '',
    Category: 'Default',
    Icon: 'server',
    ClickToGrant: true,
    CGNATOpen: false,
    HideFromUsers: false,
    HideFromAdmins: false,
    AutoBrowseUsers: false,
    MaximumGrantDuration: 0,
    IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [] },
    GrantType: { Type: 'userIp', Ips: [] },
    ...patch,
  };
}

/** An active FortiOS knoc as read back: its Bearer token RECORDED. */
export function fortiosKnoc(overrides: Partial<KnocRecord> = {}): KnocRecord {
  return knocRecord({
    ID: 'k-fw',
    Name: 'Partner portal',
    Description: 'Partner portal',
    BackendID: 'b-fw',
    BackendName: 'Forti edge',
    BackendType: 'fortios',
    BackendConfig: {
      fortios: { Url: 'https://fw.example.net', Insecure: false, Bearer: RECORDED, Prefix: 'kk_', VDOM: 'root' },
    },
    AclConfig: { fortios: { Name: 'postern_portal' } },
    UserIDs: ['u-ada'],
    ...overrides,
  });
}

/**
 * A passive allowlist knoc: its list read by address, its token made by the server. (The knocs
 * screen's allowlistKnoc, in records/knocs.ts, is read with an API key instead.)
 */
export function allowlistByAddressKnoc(overrides: Partial<KnocRecord> = {}): KnocRecord {
  return knocRecord({
    ID: 'k-list',
    Name: 'Partner list',
    Description: 'Partner list',
    BackendID: 'b-list',
    BackendName: 'Partner list',
    BackendType: 'allowlist',
    AgentID: NO_AGENT_ID,
    BackendConfig: { allowlist: {} },
    AclConfig: {
      allowlist: { Token: 'tok-123', ApiKeyId: '', AllowAccessByIp: true, AllowedIpAddresses: ['192.0.2.0/24'] },
    },
    ...overrides,
  });
}

/** A passive+ knoc: the allowlist parent users see, holding the members. */
export const PASSIVE_PLUS_PARENT = allowlistByAddressKnoc({
  ID: 'k-parent',
  Name: 'Partner firewall',
  Description: 'Partner firewall',
  Children: ['k-child'],
  ClickToGrant: false,
  UserIDs: ['u-ada'],
  GroupIDs: ['g-ops'],
});

/** Its hidden PAN-OS child that refreshes the firewall's external list (EDLName). */
export const PASSIVE_PLUS_CHILD = knocRecord({
  ID: 'k-child',
  Name: 'Partner firewall',
  Description: 'Partner firewall',
  ParentID: 'k-parent',
  HideFromUsers: true,
  HideFromAdmins: true,
  BackendID: 'b-pan',
  BackendName: 'Palo edge',
  BackendType: 'panos',
  BackendConfig: {
    panos: {
      Hostname: 'pan.example.net',
      Insecure: false,
      ApiKey: RECORDED,
      VSys: 'vsys1',
      DeviceGroup: '',
      MapUser: false,
    },
  },
  AclConfig: { panos: { GroupName: '', EDLName: 'postern-edl', MapUser: false, SerialNumber: '' } },
  UserIDs: [],
  GroupIDs: [],
});
