import { describe, expect, it } from 'vitest';
import { knocRecord } from '@/test-support/fixtures';
import { knocFieldsBody } from '../knoc-body-fixtures';
import { toUpdateInput, updateValuesFromKnoc } from './knoc-update';

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
