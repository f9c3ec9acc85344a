import { describe, expect, it } from 'vitest';
import i18n from '@/i18n/i18n';
import { backendRecord } from '@/test-support/records/backends';
import { zodFormErrors } from '@/lib/forms/zod-form-errors';
import { knocRecord } from '@/test-support/fixtures';
import { aclDetails } from './acl-details';
import { aclConfigForBackend, aclFormSchema, aclFormValues, toKnocCreateBody, toKnocUpdateBody } from './acl-form';

const identity = (key: string) => key;

describe('the ACL dialog values', () => {
  it('send the longest grant in seconds, and none as 0', () => {
    const values = { ...aclFormValues(), Description: 'db', BackendID: 'b-lb', Config: { haproxy: { ID: '3' } } };
    expect(toKnocCreateBody({ ...values, MaximumGrantDuration: 90 }, 'haproxy').MaximumGrantDuration).toBe(5400);
    expect(toKnocCreateBody({ ...values, MaximumGrantDuration: '' }, 'haproxy').MaximumGrantDuration).toBe(0);
  });

  it('show a stored longest grant in minutes', () => {
    expect(aclFormValues(knocRecord({ MaximumGrantDuration: 3600 })).MaximumGrantDuration).toBe(60);
    expect(aclFormValues(knocRecord({ MaximumGrantDuration: 0 })).MaximumGrantDuration).toBe('');
  });

  it.each([
    [4, 'err.maximumGrantDurationRange'],
    [40321, 'err.maximumGrantDurationRange'],
    [5, undefined],
    [40320, undefined],
    [0, undefined],
  ])('judge %s minutes: %s', (minutes, error) => {
    const values = { ...aclFormValues(), Description: 'db', BackendID: 'b-lb', Config: { haproxy: { ID: '3' } } };
    const errors = zodFormErrors(aclFormSchema(), { ...values, MaximumGrantDuration: minutes }, identity);
    expect(errors.MaximumGrantDuration).toBe(error);
  });

  it('need a backend (err.noBackendSelected)', () => {
    expect(zodFormErrors(aclFormSchema(), { ...aclFormValues(), Description: 'x' }, identity).BackendID).toBe(
      'err.noBackendSelected',
    );
  });

  it('keep the knoc fields the dialog does not show on update', () => {
    const knoc = knocRecord({
      CGNATOpen: true,
      AutoBrowseUsers: true,
      IpExclusions: { RestrictionType: 'RFC1918', RfcType: 'deny', Ranges: [] },
      Config: { ipset: { V4SetName: 'a', V6SetName: '' }, UriToken: 't' },
    });
    const body = toKnocUpdateBody(knoc, aclFormValues(knoc), 'ipset');
    expect(body).toMatchObject({
      ID: 'k-db',
      CGNATOpen: true,
      AutoBrowseUsers: true,
      IpExclusions: { RestrictionType: 'RFC1918', RfcType: 'deny' },
      Config: { ipset: { V4SetName: 'a', V6SetName: '' } },
    });
  });

  it('start a script knoc with a row per variable its backend declares', () => {
    const backend = backendRecord({
      Type: 'script',
      Config: { script: { Command: 'x.sh', EnvVars: [{ Name: 'TOKEN', Sensitive: true }] } },
    });
    expect(aclConfigForBackend(backend)).toEqual({
      script: { Name: '', EnvVars: [{ Name: 'TOKEN', Value: '', Sensitive: true, Encrypted: false }] },
    });
  });
});

describe('the Details column', () => {
  const t = i18n.getFixedT('en');
  it.each([
    [knocRecord({ BackendType: 'ipset', Config: { ipset: { V4SetName: 'v4', V6SetName: 'v6' } } }), 'v4, v6'],
    [knocRecord({ BackendType: 'nftables', Config: { nftables: { V4SetName: 'allow4', V6SetName: '' } } }), 'allow4'],
    [knocRecord({ BackendType: 'haproxy', Config: { haproxy: { ID: '12' } } }), 'HAProxy ACL 12'],
    [knocRecord({ BackendType: 'knocproxy', Config: { knocproxy: { Name: 'web' } } }), 'web'],
    [knocRecord({ BackendType: 'panos', Config: { panos: { GroupName: 'grp', EDLName: '' } } }), 'grp'],
    [
      knocRecord({
        BackendType: 'azure',
        Config: { azure: { NsgName: 'nsg', NsgDirection: 'Inbound', NsgPort: 443, ResourceGroup: 'rg' } },
      }),
      'nsg, Inbound, port 443',
    ],
    [knocRecord({ BackendType: 'allowlist', Config: { allowlist: {} } }), 'Published allowlist'],
  ])('describe %#', (knoc, text) => {
    expect(aclDetails(knoc, t)).toBe(text);
  });
});
