import type { GroupRecord } from '@postern/protocol';

/*
 * Records for the groups tests, complete enough to pass the protocol's response schemas (the typed
 * fake API parses every answer).
 */

/** A local group. */
export function groupRecord(overrides: Partial<GroupRecord> = {}): GroupRecord {
  return {
    ID: 'g-ops',
    Name: 'Operations',
    Description: 'On-call staff',
    Type: 'local',
    ACLIDs: [],
    UserIDs: [],
    ...overrides,
  };
}
