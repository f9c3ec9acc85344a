import { z } from 'zod';
import {
  DEFAULT_ACL_CATEGORY,
  DEFAULT_ICON,
  ErrorCodes,
  GrantType,
  IpExclusions,
  knocFields,
  MAX_GRANT_MINUTES_MAX,
  MAX_GRANT_MINUTES_MIN,
  RFC1918_RANGES,
  type IpRange,
  type KnocWizardCreateBody,
  type RESTRICTION_TYPES,
} from '@postern/protocol';
import { nameIssueKey } from '@/lib/forms/zod-form-errors';

export type RestrictionType = (typeof RESTRICTION_TYPES)[number];

/** The Knoc options form (spec §3): the knoc's descriptive fields and its options. */
export interface KnocOptionsValues {
  Description: string;
  URL: string;
  Category: string;
  Icon: string;
  ClickToGrant: boolean;
  HideFromUsers: boolean;
  AutoBrowseUsers: boolean;
  CGNATOpen: boolean;
  /** Minutes as typed ('' or 0: none); the server gets seconds. */
  MaximumGrantMinutes: number | string;
  IpExclusions: { RestrictionType: RestrictionType; RfcType: 'allow' | 'deny'; Ranges: IpRange[] };
  /** The admin's own ranges, kept while RFC1918 shows its fixed ones, and restored after. */
  OwnRanges: IpRange[];
  GrantType: { Type: 'userIp' | 'specifiedIps'; Ips: { Ip: string }[] };
}

/** A new knoc's options: the spec's defaults. */
export function defaultKnocOptions(): KnocOptionsValues {
  return {
    Description: '',
    URL: '',
    Category: DEFAULT_ACL_CATEGORY,
    Icon: DEFAULT_ICON,
    ClickToGrant: true,
    HideFromUsers: false,
    AutoBrowseUsers: false,
    CGNATOpen: false,
    MaximumGrantMinutes: '',
    IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [] },
    OwnRanges: [],
    GrantType: { Type: 'userIp', Ips: [] },
  };
}

/** The typed maximum grant duration in seconds: 0 for none (empty or 0), else minutes × 60. */
export function grantSeconds(minutes: number | string): number {
  if (minutes === '') return 0;
  return Number(minutes) * 60;
}

/** Empty or 0 (none), or a whole number of minutes from 5 to 40320. */
function validGrantMinutes(minutes: number | string): boolean {
  if (minutes === '') return true;
  const value = Number(minutes);
  return value === 0 || (Number.isInteger(value) && value >= MAX_GRANT_MINUTES_MIN && value <= MAX_GRANT_MINUTES_MAX);
}

/** The texts of the Description's generic name rule. */
export const descriptionIssueKey = nameIssueKey({
  required: 'knocWizard.options.descriptionRequired',
  controlCharacters: 'knocWizard.options.controlCharacters',
});

/** The options form's rules: the protocol's, with the duration in minutes. */
export const knocOptionsSchema = z.object({
  Description: knocFields.Description,
  URL: knocFields.URL,
  Category: z.string().trim().max(200),
  MaximumGrantMinutes: z
    .union([z.number(), z.string()])
    .refine(validGrantMinutes, ErrorCodes.maximumGrantDurationRange),
  IpExclusions,
  GrantType,
});

/**
 * The exclusions after choosing another restriction type. RFC1918 fills the three fixed private
 * ranges (RfcType back to allow) and keeps the admin's own ranges aside; leaving it restores them.
 */
export function switchRestriction(values: KnocOptionsValues, type: RestrictionType): Partial<KnocOptionsValues> {
  const current = values.IpExclusions;
  if (type === current.RestrictionType) return {};
  if (type === 'RFC1918') {
    return {
      OwnRanges: current.Ranges,
      IpExclusions: { RestrictionType: type, RfcType: 'allow', Ranges: RFC1918_RANGES.map((range) => ({ ...range })) },
    };
  }
  const ranges = current.RestrictionType === 'RFC1918' ? values.OwnRanges : current.Ranges;
  return { IpExclusions: { ...current, RestrictionType: type, Ranges: ranges } };
}

/** Whether the knoc is restricted to some addresses (its preview then shows the disabled variant). */
export function hasIpRestriction(values: KnocOptionsValues): boolean {
  return values.IpExclusions.RestrictionType !== 'none';
}

/** The knoc's fields the options give, as the create and update bodies carry them. */
export type KnocFields = Omit<z.output<typeof KnocWizardCreateBody>['Knoc'], 'Config' | 'ParentID'>;

/** The options as the create and update bodies carry them (without Config). */
export function toKnocFields(values: KnocOptionsValues): KnocFields {
  const exclusions = values.IpExclusions;
  return {
    Description: values.Description.trim(),
    URL: values.URL.trim(),
    Category: values.Category.trim() === '' ? DEFAULT_ACL_CATEGORY : values.Category.trim(),
    Icon: values.Icon === '' ? DEFAULT_ICON : values.Icon,
    ClickToGrant: values.ClickToGrant,
    CGNATOpen: values.CGNATOpen,
    HideFromUsers: values.HideFromUsers,
    HideFromAdmins: false,
    AutoBrowseUsers: values.AutoBrowseUsers,
    MaximumGrantDuration: grantSeconds(values.MaximumGrantMinutes),
    IpExclusions: {
      RestrictionType: exclusions.RestrictionType,
      RfcType: exclusions.RfcType,
      // Rows left empty mean nothing; with no restriction, no ranges apply.
      Ranges:
        exclusions.RestrictionType === 'none'
          ? []
          : exclusions.Ranges.filter((range) => range.Start.trim() !== '' || range.End.trim() !== ''),
    },
    GrantType: {
      Type: values.GrantType.Type,
      Ips:
        values.GrantType.Type === 'specifiedIps' ? values.GrantType.Ips.map((entry) => ({ Ip: entry.Ip.trim() })) : [],
    },
  };
}
