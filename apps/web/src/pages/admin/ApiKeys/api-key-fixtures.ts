import type { KnocRecord, UserRecord } from '@postern/protocol';
import { knocRecord, userRecord } from '@/test-support/fixtures';

export { apiKey } from '@/features/api-keys/api-key-fixtures';

/*
 * Test fixtures of the API keys screen: whole protocol records with only the interesting fields
 * chosen by each test (the typed fake API checks them against the schemas).
 */

/** A knoc; an allowlist one unless told otherwise. */
export function knoc(overrides: Partial<KnocRecord> = {}): KnocRecord {
  return knocRecord({
    ID: 'acl-1',
    Name: 'Office allowlist',
    Description: 'Office allowlist',
    ClickToGrant: false,
    BackendID: 'backend-1',
    BackendName: 'allowlist',
    BackendType: 'allowlist',
    AgentID: '00000000-0000-0000-0000-000000000000',
    AgentName: '',
    LastModifiedAt: new Date().toISOString(),
    LastModifiedBy: 'admin',
    ...overrides,
  });
}

/** A user; an API-key user unless told otherwise. */
export function user(overrides: Partial<UserRecord> = {}): UserRecord {
  return userRecord({
    ID: 'user-1',
    Name: 'Robot',
    UserName: 'robot',
    AuthType: 'apikey',
    CreatedAt: new Date().toISOString(),
    ...overrides,
  });
}
