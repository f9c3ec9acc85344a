import { describe, expect, it } from 'vitest';
import { compareReleaseVersions, parseReleaseFeed, releaseStatus, type ReleaseFeed } from './release-feed.js';

const release = (version: string, extra: object = {}) => ({
  version,
  date: '2026-12-01',
  changelog: `https://example.com/postern/changelog#${version}`,
  ...extra,
});

describe('parseReleaseFeed', () => {
  it('reads server and agent releases, filling in urgency low and an empty description', () => {
    const parsed = parseReleaseFeed(
      JSON.stringify({
        format: 1,
        server: [release('1.10.0', { urgency: 'high', description: 'Fixes a grant leak' })],
        agent: [release('1.10.1')],
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      feed: {
        server: [{ ...release('1.10.0'), urgency: 'high', description: 'Fixes a grant leak' }],
        agent: [{ ...release('1.10.1'), urgency: 'low', description: '' }],
      },
    });
  });

  it('takes a feed with only one of the lists', () => {
    expect(parseReleaseFeed(JSON.stringify({ agent: [] }))).toEqual({ ok: true, feed: { server: [], agent: [] } });
  });

  it.each([
    ['text that is not JSON', '<html>', 'it is not JSON'],
    ['an object with neither list', '{"releases": []}', 'has neither a "server" nor an "agent" list'],
    ['a list that is no list', '{"server": {}}', 'server: '],
    [
      'a version that is not x.y.z',
      JSON.stringify({ server: [release('v1.10')] }),
      'server.0.version: must be a version such as 1.10.0',
    ],
    [
      'an impossible date',
      JSON.stringify({ agent: [release('1.0.0', { date: '2026-13-45' })] }),
      'agent.0.date: must be a date',
    ],
    [
      'a changelog that is not http(s)',
      JSON.stringify({ server: [release('1.0.0', { changelog: 'javascript:alert(1)' })] }),
      'server.0.changelog: must be an http or https URL',
    ],
    ['an unknown urgency', JSON.stringify({ server: [release('1.0.0', { urgency: 'urgent' })] }), 'server.0.urgency: '],
  ])('refuses %s, saying where', (_case, text, reason) => {
    const parsed = parseReleaseFeed(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.reason).toContain(reason);
  });
});

describe('compareReleaseVersions', () => {
  it.each([
    ['1.10.0', '1.9.0', 1],
    ['1.9.0', '1.9.0', 0],
    ['1.9.0-rc.1', '1.9.0', -1],
    ['2.0.0', '10.0.0', -1],
  ])('%s against %s: %i', (a, b, sign) => {
    expect(compareReleaseVersions(a, b)).toBe(sign);
  });
});

describe('releaseStatus', () => {
  const feed: ReleaseFeed = {
    server: [
      { ...release('1.8.0'), urgency: 'critical', description: '' },
      { ...release('1.10.0'), urgency: 'low', description: '' },
      { ...release('1.9.1'), urgency: 'high', description: '' },
    ],
    agent: [{ ...release('1.9.2'), urgency: 'medium', description: 'Faster ipset' }],
  };

  it('reports the newer server releases, newest first, with the newest changelog, and every agent release', () => {
    expect(releaseStatus(feed, '1.9.0')).toEqual({
      AvailableServerVersions: [
        { version: '1.10.0', urgency: 'low' },
        { version: '1.9.1', urgency: 'high' },
      ],
      LatestChangeLogsUrl: 'https://example.com/postern/changelog#1.10.0',
      AvailableAgentVersions: [
        {
          version: '1.9.2',
          urgency: 'medium',
          description: 'Faster ipset',
          changelog_link: 'https://example.com/postern/changelog#1.9.2',
        },
      ],
    });
  });

  it('knows of nothing without a feed, or when the running server is the newest', () => {
    const none = { AvailableServerVersions: [], LatestChangeLogsUrl: '', AvailableAgentVersions: [] };
    expect(releaseStatus(null)).toEqual(none);
    expect(releaseStatus({ server: feed.server, agent: [] }, '1.10.0')).toEqual(none);
  });
});
