import { z } from 'zod';
import { adminUrlProblem, POSTERN_VERSION, UPDATE_URGENCIES, type AdminStatus } from '@postern/protocol';

/*
 * The release feed an operator may configure (POSTERN_RELEASE_FEED; docs/operations.md): which
 * Postern server and agent releases exist, how urgent each is and where its changelog is. Postern
 * never phones home on its own; without a feed it knows of no release but its own.
 */

/** MAJOR.MINOR.PATCH with an optional pre-release (`1.10.0`, `2.0.0-rc.1`). */
const VERSION = /^(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})\.(0|[1-9]\d{0,5})(?:-([0-9A-Za-z.-]{1,64}))?$/;
/** A calendar date, optionally with a time (`2026-12-01`, `2026-12-01T09:00:00Z`). */
const DATE = /^\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:\d{2}))?$/;
/** A feed longer than this is not a release list. */
const MAX_RELEASES = 500;

const Release = z.object({
  version: z.string().regex(VERSION, 'must be a version such as 1.10.0'),
  date: z
    .string()
    .regex(DATE, 'must be a date such as 2026-12-01')
    .refine((value) => !Number.isNaN(Date.parse(value)), 'must be a date such as 2026-12-01'),
  changelog: z
    .string()
    .refine((value) => adminUrlProblem(value, ['https', 'http']) === null, 'must be an http or https URL'),
  urgency: z.enum(UPDATE_URGENCIES).default('low'),
  description: z.string().max(1000).default(''),
});

/** The feed's document: `{ "server": [releases], "agent": [releases] }`, either list may be absent. */
const ReleaseFeedDocument = z
  .looseObject({
    server: z.array(Release).max(MAX_RELEASES).optional(),
    agent: z.array(Release).max(MAX_RELEASES).optional(),
  })
  .refine((feed) => feed.server !== undefined || feed.agent !== undefined, 'has neither a "server" nor an "agent" list')
  .transform((feed) => ({ server: feed.server ?? [], agent: feed.agent ?? [] }));

/** One release the feed announces. */
export type Release = z.output<typeof Release>;
/** A feed that parsed: the server's and the agent's releases. */
export type ReleaseFeed = z.output<typeof ReleaseFeedDocument>;

/** A feed's text read: the releases, or why the text is not a feed (for the log). */
export type ParsedFeed = { ok: true; feed: ReleaseFeed } | { ok: false; reason: string };

/** Reads a feed's JSON text. Never throws: a bad feed is a reason naming where it is wrong. */
export function parseReleaseFeed(text: string): ParsedFeed {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'it is not JSON' };
  }
  const parsed = ReleaseFeedDocument.safeParse(json);
  if (parsed.success) return { ok: true, feed: parsed.data };
  const problems = parsed.error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.join('.');
    return where === '' ? issue.message : `${where}: ${issue.message}`;
  });
  return { ok: false, reason: problems.join('; ') };
}

/** Compares two feed versions (see VERSION): negative when `a` is older; a pre-release before its release. */
export function compareReleaseVersions(a: string, b: string): number {
  const left = VERSION.exec(a);
  const right = VERSION.exec(b);
  if (left === null || right === null) return 0;
  for (const part of [1, 2, 3]) {
    const difference = Number(left[part]) - Number(right[part]);
    if (difference !== 0) return Math.sign(difference);
  }
  if (left[4] === right[4]) return 0;
  if (left[4] === undefined) return 1;
  if (right[4] === undefined) return -1;
  return left[4] < right[4] ? -1 : 1;
}

/** What the admin status says about releases. */
export type ReleaseStatus = Pick<
  AdminStatus,
  'AvailableServerVersions' | 'LatestChangeLogsUrl' | 'AvailableAgentVersions'
>;

/**
 * The admin status's release fields from the feed (null: none configured or none read yet): the
 * server releases newer than the running one, newest first, with the newest one's changelog; and
 * every agent release, which the console compares agents with beside the server's own version.
 */
export function releaseStatus(feed: ReleaseFeed | null, running: string = POSTERN_VERSION): ReleaseStatus {
  const newer = (feed?.server ?? [])
    .filter((release) => compareReleaseVersions(release.version, running) > 0)
    .sort((a, b) => compareReleaseVersions(b.version, a.version));
  return {
    AvailableServerVersions: newer.map((release) => ({ version: release.version, urgency: release.urgency })),
    LatestChangeLogsUrl: newer[0]?.changelog ?? '',
    AvailableAgentVersions: (feed?.agent ?? []).map((release) => ({
      version: release.version,
      urgency: release.urgency,
      description: release.description,
      changelog_link: release.changelog,
    })),
  };
}
