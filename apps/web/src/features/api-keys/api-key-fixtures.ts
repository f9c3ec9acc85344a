import type { ApiKeyRecord } from '@postern/protocol';

/* Test data only: API keys as GET /api/admin/api-keys lists them (the API keys screen, the knoc wizard). */

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
