import { describe, expect, it } from 'vitest';
import type { AdminStatus } from '@postern/protocol';
import {
  applicableBanners,
  BANNER_PRIORITY,
  chooseBanner,
  needsAgentList,
  pendingServerUpdate,
  type BannerFacts,
  type BannerKind,
} from './banner-rules';
import { agentRecord } from '@/test-support/records/agents';
import { licensing, quietStatus } from '@/test-support/records/banners';

/** Each banner's condition, alone; combined below to check the priority. */
const CONDITIONS: Record<BannerKind, { status: Partial<AdminStatus>; agents?: BannerFacts['agents'] }> = {
  unlicensed: { status: { Licensing: licensing({ Licensed: false }) } },
  agentIncompatible: { status: {}, agents: [agentRecord({ Name: 'old-edge', Version: '1.5.9' })] },
  userLimitExceeded: { status: { UserCount: 101 } },
  serverUpdate: { status: { AvailableServerVersions: [{ version: '1.9.1', urgency: 'low' }] } },
};

/** Facts where every condition in `kinds` holds and no other. */
function factsWith(...kinds: BannerKind[]): BannerFacts {
  const statusOverrides = Object.assign({}, ...kinds.map((kind) => CONDITIONS[kind].status)) as Partial<AdminStatus>;
  return { status: quietStatus(statusOverrides), agents: kinds.flatMap((kind) => CONDITIONS[kind].agents ?? []) };
}

const none = new Set<BannerKind>();

describe('which admin banner shows', () => {
  it('shows none when nothing applies', () => {
    expect(chooseBanner(factsWith(), none)).toBeNull();
  });

  it.each(BANNER_PRIORITY)('shows %s when only its condition holds', (kind) => {
    expect(chooseBanner(factsWith(kind), none)?.kind).toBe(kind);
  });

  // Unlicensed and over the limit never hold together: without a licence there is no limit to exceed.
  it.each([
    [['unlicensed', 'agentIncompatible', 'serverUpdate'], 'unlicensed'],
    [['agentIncompatible', 'userLimitExceeded', 'serverUpdate'], 'agentIncompatible'],
    [['userLimitExceeded', 'serverUpdate'], 'userLimitExceeded'],
    [['agentIncompatible', 'serverUpdate'], 'agentIncompatible'],
    [['unlicensed', 'serverUpdate'], 'unlicensed'],
  ] as [BannerKind[], BannerKind][])('of %j shows only %s', (kinds, expected) => {
    expect(chooseBanner(factsWith(...kinds), none)?.kind).toBe(expected);
    expect(applicableBanners(factsWith(...kinds)).map((banner) => banner.kind)).toEqual(kinds);
  });

  it.each([
    [['agentIncompatible'], 'userLimitExceeded'],
    [['agentIncompatible', 'userLimitExceeded'], 'serverUpdate'],
    [['agentIncompatible', 'userLimitExceeded', 'serverUpdate'], null],
    [['serverUpdate'], 'agentIncompatible'],
  ] as [BannerKind[], BannerKind | null][])('after dismissing %j shows %s', (dismissed, expected) => {
    const facts = factsWith('agentIncompatible', 'userLimitExceeded', 'serverUpdate');
    expect(chooseBanner(facts, new Set(dismissed))?.kind ?? null).toBe(expected);
  });

  it('never lets a dismissal hide the unlicensed banner', () => {
    const facts = factsWith('unlicensed', 'serverUpdate');
    expect(chooseBanner(facts, new Set<BannerKind>(['unlicensed', 'serverUpdate']))?.kind).toBe('unlicensed');
  });
});

describe('banner conditions', () => {
  it.each([
    ['1.5.9', true],
    ['1.6.0-rc.1', true],
    ['1.6.0', false],
    ['1.10.0', false],
    [null, false],
    ['garbage', false],
  ])('an agent on version %s makes the agent banner apply: %s', (version, applies) => {
    const facts = { status: quietStatus(), agents: [agentRecord({ Name: 'edge-9', Version: version })] };
    expect(chooseBanner(facts, none)?.kind === 'agentIncompatible').toBe(applies);
  });

  it('names the incompatible agents and the required version', () => {
    const agents = [
      agentRecord({ Name: 'old-a', Version: '1.2.0' }),
      agentRecord({ Name: 'fine', Version: '1.9.0' }),
      agentRecord({ Name: 'old-b', Version: '1.5.0' }),
    ];
    expect(chooseBanner({ status: quietStatus(), agents }, none)).toEqual({
      kind: 'agentIncompatible',
      requiredVersion: '1.6.0',
      agentNames: ['old-a', 'old-b'],
    });
  });

  it.each([
    [100, null],
    [101, 'userLimitExceeded'],
    [150, 'userLimitExceeded'],
    [151, 'userLimitExceeded'],
  ])('with %i users of 100 (+50 grace) shows %s', (users, expected) => {
    expect(chooseBanner({ status: quietStatus({ UserCount: users }), agents: [] }, none)?.kind ?? null).toBe(expected);
  });

  it('shows no server update on a cloud installation', () => {
    const facts = factsWith('serverUpdate');
    expect(chooseBanner({ ...facts, status: { ...facts.status, Cloud: true } }, none)).toBeNull();
  });

  it('carries the changelog link and both versions of a server update', () => {
    const status = quietStatus({
      AvailableServerVersions: [{ version: '2.0.0', urgency: 'high' }],
      LatestChangeLogsUrl: 'https://example.org/changes',
    });
    expect(chooseBanner({ status, agents: [] }, none)).toEqual({
      kind: 'serverUpdate',
      urgency: 'high',
      version: '2.0.0',
      currentVersion: '1.9.0',
      changelogUrl: 'https://example.org/changes',
    });
  });
});

describe('the server update to announce', () => {
  type Release = AdminStatus['AvailableServerVersions'][number];
  it.each<[string, Release[], ReturnType<typeof pendingServerUpdate>]>([
    ['nothing listed', [], null],
    [
      'only older or equal releases',
      [
        { version: '1.8.0', urgency: 'critical' },
        { version: '1.9.0', urgency: 'high' },
      ],
      null,
    ],
    ['one newer release', [{ version: '1.9.1', urgency: 'medium' }], { urgency: 'medium', version: '1.9.1' }],
    [
      'the highest urgency and the newest version',
      [
        { version: '1.9.1', urgency: 'critical' },
        { version: '1.11.0', urgency: 'low' },
        { version: '1.10.0', urgency: 'high' },
      ],
      { urgency: 'critical', version: '1.11.0' },
    ],
    [
      'ignoring the urgency of an older release',
      [
        { version: '1.8.5', urgency: 'critical' },
        { version: '1.9.2', urgency: 'low' },
      ],
      { urgency: 'low', version: '1.9.2' },
    ],
  ])('with %s', (_name, releases, expected) => {
    expect(pendingServerUpdate({ ServerVersion: '1.9.0', AvailableServerVersions: releases })).toEqual(expected);
  });
});

describe('whether the banner needs the agent list', () => {
  it.each([
    ['no status yet', undefined, none, false],
    [
      'unlicensed (its banner cannot be dismissed)',
      quietStatus({ Licensing: licensing({ Licensed: false }) }),
      none,
      false,
    ],
    ['licensed', quietStatus(), none, true],
    ['licensed, agent banner dismissed', quietStatus(), new Set<BannerKind>(['agentIncompatible']), false],
    ['licensed, another banner dismissed', quietStatus(), new Set<BannerKind>(['serverUpdate']), true],
  ])('%s: %s', (_name, status, dismissed, expected) => {
    expect(needsAgentList(status, dismissed)).toBe(expected);
  });
});
