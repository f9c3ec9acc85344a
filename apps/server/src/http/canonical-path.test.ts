import { describe, expect, it } from 'vitest';
import { nonCanonicalPath } from './canonical-path.js';

describe('nonCanonicalPath', () => {
  it.each([
    '/',
    '/api/admin/agents',
    '/api/admin/users/0194c1d2-7c4e-7000-8000-000000000001/groups',
    '/api/v1/allowlists/abc/Zm9v-_.txt?x=%61',
    '/admin/',
    '/assets/index-AbC123.js',
    '/api/search/caf%C3%A9',
    '/api/x%20y',
  ])('accepts %s', (url) => {
    expect(nonCanonicalPath(url)).toBeNull();
  });

  it.each([
    ['/api/%61dmin/agents', 'percent-encoded'],
    ['/%61pi/admin/agents', 'percent-encoded'],
    ['/api/admin/agent%73', 'percent-encoded'],
    ['/api/admin/%2E/agents', 'percent-encoded'],
    ['/api/%7Eadmin', 'percent-encoded'],
    ['/api/admin%2Fagents', 'percent-encoded'],
    ['/api/admin%2fagents', 'percent-encoded'],
    ['/api/admin%5Cagents', 'percent-encoded'],
    ['/api/admin/agents%00', 'percent-encoded'],
    ['/api/admin/agents%0A', 'percent-encoded'],
    ['//api/admin/agents', 'empty path segment'],
    ['/api//admin/agents', 'empty path segment'],
    ['/api/admin/./agents', 'dot segment'],
    ['/api/admin/x/../agents', 'dot segment'],
    ['/api/admin/agents/..', 'dot segment'],
    ['/api\\admin/agents', 'backslash'],
    ['api/admin/agents', 'must start with /'],
    ['http://localhost/api/admin/agents', 'must start with /'],
    ['*', 'must start with /'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(nonCanonicalPath(url)).toContain(reason);
  });
});
