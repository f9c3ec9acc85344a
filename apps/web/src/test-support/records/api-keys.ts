import type { ApiKeyRecord, KnocRecord, UserRecord } from '@postern/protocol';
import { knocRecord, userRecord } from '../fixtures';

/*
 * Test data only: API keys as GET /api/admin/api-keys lists them (the API keys screen, the knoc
 * wizard), and the allowlists and machine users they are for.
 */

/** A stored API key. */
export function apiKey(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    ID: 'key-1',
    Name: 'ci-pipeline',
    Scopes: ['allowlist.read:acl-1'],
    Resources: ['acl-1'],
    AllowedFrom: [
      { Prefix: '0.0.0.0/0', Note: 'Anywhere (IPv4)' },
      { Prefix: '::/0', Note: 'Anywhere (IPv6)' },
    ],
    ExpiredAfter: null,
    CreatedAt: new Date(Date.now() - 90 * 86_400_000).toISOString(),
    LastUsedAt: null,
    ...overrides,
  };
}

/** An allowlist knoc a key may read: acl-1, the one the default key is scoped to. */
export function apiKeyAllowlist(overrides: Partial<KnocRecord> = {}): KnocRecord {
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

/** A machine user a key may sign in as (an API-key user). */
export function apiKeyUser(overrides: Partial<UserRecord> = {}): UserRecord {
  return userRecord({
    ID: 'user-1',
    Name: 'Robot',
    UserName: 'robot',
    AuthType: 'apikey',
    CreatedAt: new Date().toISOString(),
    ...overrides,
  });
}
