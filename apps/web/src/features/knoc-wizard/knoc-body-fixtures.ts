import type { KnocFields } from './sections/knoc-options';

/** Test data only: the knoc fields a body carries when no option was changed, with `patch` applied. */
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
