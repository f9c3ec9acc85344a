import { describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { knocRecord } from '@/test-support/fixtures';
import { applicationKindOfKnoc, updateSettingsSchema } from './application-kind';
import {
  allowlistByAddressKnoc,
  fortiosKnoc,
  PASSIVE_PLUS_CHILD,
  PASSIVE_PLUS_PARENT,
} from '@/test-support/records/knoc-wizard';
import { updateValuesFromKnoc } from './knoc-update';

describe('application kind of a stored knoc', () => {
  it('reads kind and vendor from the config', () => {
    expect(applicationKindOfKnoc(fortiosKnoc())).toEqual({ type: 'active', vendor: 'fortinet' });
    expect(applicationKindOfKnoc(allowlistByAddressKnoc())).toEqual({ type: 'passive', vendor: null });
    expect(applicationKindOfKnoc(PASSIVE_PLUS_PARENT)).toEqual({ type: 'passive+', vendor: null });
    expect(applicationKindOfKnoc(PASSIVE_PLUS_CHILD)).toEqual({ type: 'passive+', vendor: 'palo' });
  });

  it('is none for Linux, proxy and script knocs', () => {
    expect(applicationKindOfKnoc(knocRecord({ BackendType: 'ipset' }))).toBeNull();
    expect(applicationKindOfKnoc(knocRecord({ BackendType: 'script' }))).toBeNull();
  });
});

describe('update settings rules', () => {
  const ALLOWLIST_RULES = updateSettingsSchema(applicationKindOfKnoc(allowlistByAddressKnoc()));
  const allowlistSettings = (acl: Record<string, unknown>) => {
    const settings = updateValuesFromKnoc(allowlistByAddressKnoc()).settings;
    return { ...settings, Acl: { ...settings.Acl, ...acl } };
  };

  it('needs an address range when the allowlist is read by address', () => {
    const issues = ALLOWLIST_RULES.safeParse(allowlistSettings({ AllowedIpAddresses: [] })).error?.issues;
    expect(issues?.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['Acl.AllowedIpAddresses', ErrorCodes.ipRangeRequired],
    ]);
    expect(ALLOWLIST_RULES.safeParse(allowlistSettings({})).success).toBe(true);
    expect(
      ALLOWLIST_RULES.safeParse(allowlistSettings({ AllowAccessByIp: false, AllowedIpAddresses: [] })).success,
    ).toBe(true);
  });

  it('does not require a secret left empty (the stored one is kept)', () => {
    const knoc = fortiosKnoc();
    const rules = updateSettingsSchema(applicationKindOfKnoc(knoc));
    expect(rules.safeParse(updateValuesFromKnoc(knoc).settings).success).toBe(true);
  });

  it('keeps the EDL name of a passive+ firewall knoc', () => {
    const rules = updateSettingsSchema(applicationKindOfKnoc(PASSIVE_PLUS_CHILD));
    const settings = updateValuesFromKnoc(PASSIVE_PLUS_CHILD, PASSIVE_PLUS_PARENT).settings;
    expect(rules.safeParse(settings).success).toBe(true);
    const cleared = { ...settings, Acl: { ...settings.Acl, EDLName: '' } };
    expect(rules.safeParse(cleared).error?.issues.map((issue) => issue.path.join('.'))).toEqual(['Acl.EDLName']);
  });
});
