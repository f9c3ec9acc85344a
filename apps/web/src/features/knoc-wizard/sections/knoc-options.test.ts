import { describe, expect, it } from 'vitest';
import { ErrorCodes, RFC1918_RANGES } from '@postern/protocol';
import { firstIssues } from '@/test-support/form-issues';
import {
  defaultKnocOptions,
  grantSeconds,
  knocOptionsSchema,
  switchRestriction,
  toKnocFields,
  type KnocOptionsValues,
} from './knoc-options';

const options = (patch: Partial<KnocOptionsValues> = {}): KnocOptionsValues => ({
  ...defaultKnocOptions(),
  Description: 'SSH',
  ...patch,
});

const issues = (values: KnocOptionsValues) => firstIssues(knocOptionsSchema, values);

describe('knoc options: defaults', () => {
  it('starts with category Default, the server icon, click to grant and no restriction', () => {
    expect(defaultKnocOptions()).toMatchObject({
      Category: 'Default',
      Icon: 'server',
      ClickToGrant: true,
      HideFromUsers: false,
      AutoBrowseUsers: false,
      CGNATOpen: false,
      MaximumGrantMinutes: '',
      IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [] },
      GrantType: { Type: 'userIp', Ips: [] },
    });
  });

  it('requires a description', () => {
    expect(Object.keys(issues(options({ Description: '  ' })))).toEqual(['Description']);
  });
});

describe('knoc options: maximum grant duration', () => {
  it.each([
    ['', true, 0],
    [0, true, 0],
    [5, true, 300],
    [60, true, 3600],
    [40320, true, 2_419_200],
    [4, false, null],
    [40321, false, null],
    [7.5, false, null],
    [-5, false, null],
  ])('%s minutes: valid %s, sent as %s seconds', (minutes, valid, seconds) => {
    const found = issues(options({ MaximumGrantMinutes: minutes }));
    expect(found.MaximumGrantMinutes === ErrorCodes.maximumGrantDurationRange).toBe(!valid);
    if (seconds !== null) {
      expect(grantSeconds(minutes)).toBe(seconds);
      expect(toKnocFields(options({ MaximumGrantMinutes: minutes })).MaximumGrantDuration).toBe(seconds);
    }
  });
});

describe('knoc options: IP ranges', () => {
  const list = (Ranges: { Start: string; End: string }[], RestrictionType: 'allowList' | 'denyList' = 'allowList') =>
    options({ IpExclusions: { RestrictionType, RfcType: 'allow', Ranges } });

  it.each([
    [
      [
        { Start: '', End: '' },
        { Start: '192.0.2.1', End: '192.0.2.9' },
      ],
      {},
    ],
    [[{ Start: '192.0.2.1', End: '' }], { 'IpExclusions.Ranges.0.End': ErrorCodes.invalidIpAddress }],
    [
      [{ Start: '', End: '192.0.2.9' }],
      // A range without a start is no range yet: the list still needs one.
      { 'IpExclusions.Ranges.0.Start': ErrorCodes.invalidIpAddress, 'IpExclusions.Ranges': ErrorCodes.ipRangeRequired },
    ],
    [[{ Start: '192.0.2.01', End: '192.0.2.9' }], { 'IpExclusions.Ranges.0.Start': ErrorCodes.invalidIpAddress }],
    [[{ Start: '192.0.2.1', End: '192.0.2.256' }], { 'IpExclusions.Ranges.0.End': ErrorCodes.invalidIpAddress }],
    [[{ Start: '', End: '' }], { 'IpExclusions.Ranges': ErrorCodes.ipRangeRequired }],
    [[], { 'IpExclusions.Ranges': ErrorCodes.ipRangeRequired }],
  ])('ranges %j give %j', (ranges, expected) => {
    expect(issues(list(ranges))).toEqual(expected);
    expect(issues(list(ranges, 'denyList'))).toEqual(expected);
  });

  it('sends only the filled ranges, and none without a restriction', () => {
    const filled = { Start: '192.0.2.1', End: '192.0.2.9' };
    expect(toKnocFields(list([{ Start: '', End: '' }, filled])).IpExclusions.Ranges).toEqual([filled]);
    const none = options({ IpExclusions: { RestrictionType: 'none', RfcType: 'allow', Ranges: [filled] } });
    expect(toKnocFields(none).IpExclusions.Ranges).toEqual([]);
  });
});

describe('knoc options: RFC1918', () => {
  const own = [{ Start: '198.51.100.1', End: '198.51.100.20' }];

  it('fills the three private ranges with RfcType allow and restores the own ranges after', () => {
    const start = options({ IpExclusions: { RestrictionType: 'allowList', RfcType: 'deny', Ranges: own } });
    const rfc: KnocOptionsValues = { ...start, ...switchRestriction(start, 'RFC1918') };
    expect(rfc.IpExclusions).toEqual({ RestrictionType: 'RFC1918', RfcType: 'allow', Ranges: RFC1918_RANGES });
    expect(issues(rfc)).toEqual({});
    const back: KnocOptionsValues = { ...rfc, ...switchRestriction(rfc, 'denyList') };
    expect(back.IpExclusions).toMatchObject({ RestrictionType: 'denyList', Ranges: own });
  });

  it('keeps the ranges when switching between allow and deny lists', () => {
    const start = options({ IpExclusions: { RestrictionType: 'allowList', RfcType: 'allow', Ranges: own } });
    expect(switchRestriction(start, 'denyList').IpExclusions?.Ranges).toEqual(own);
  });

  it('sends the three ranges and the chosen RfcType', () => {
    const start = options();
    const rfc: KnocOptionsValues = { ...start, ...switchRestriction(start, 'RFC1918') };
    rfc.IpExclusions = { ...rfc.IpExclusions, RfcType: 'deny' };
    expect(toKnocFields(rfc).IpExclusions).toEqual({
      RestrictionType: 'RFC1918',
      RfcType: 'deny',
      Ranges: RFC1918_RANGES,
    });
  });
});

describe('knoc options: grant type', () => {
  const specified = (ips: string[]) => options({ GrantType: { Type: 'specifiedIps', Ips: ips.map((Ip) => ({ Ip })) } });

  it.each([
    [['192.0.2.7', '2001:db8::1'], {}],
    [[''], { 'GrantType.Ips.0.Ip': ErrorCodes.invalidIpAddress }],
    [['192.0.2.7', 'not-an-ip'], { 'GrantType.Ips.1.Ip': ErrorCodes.invalidIpAddress }],
    [[], { 'GrantType.Ips': ErrorCodes.invalidIpAddress }],
  ])('specified IPs %j give %j', (ips, expected) => {
    expect(issues(specified(ips))).toEqual(expected);
  });

  it('sends the IPs only for specified IPs', () => {
    expect(toKnocFields(specified(['192.0.2.7'])).GrantType).toEqual({
      Type: 'specifiedIps',
      Ips: [{ Ip: '192.0.2.7' }],
    });
    const back = options({ GrantType: { Type: 'userIp', Ips: [{ Ip: '192.0.2.7' }] } });
    expect(toKnocFields(back).GrantType).toEqual({ Type: 'userIp', Ips: [] });
  });
});
