/**
 * The Version badge rule (spec: "Agent and licence states"): below the server's minimum an agent is
 * incompatible (red), below the newest version it could run it is out of date (yellow), otherwise up
 * to date (green). An agent that never said its version cannot be judged.
 */
export type AgentVersionState = 'incompatible' | 'outdated' | 'current' | 'unknown';

/** The versions an agent's version is measured against, from the admin status. */
export interface AgentVersionPolicy {
  /** MinimumRequiredAgentVersion. */
  minimum: string;
  /** The highest available agent version, or null when none is known. */
  newest: string | null;
}

/** The badge colour of each state; colour is never the only signal, the state is also written out. */
export const VERSION_STATE_COLOURS: Record<AgentVersionState, string> = {
  incompatible: 'red',
  outdated: 'yellow',
  current: 'green',
  unknown: 'gray',
};

interface ParsedVersion {
  numbers: number[];
  /** A pre-release ("1.9.0-rc.1") sorts before its release. */
  preRelease: boolean;
}

/** "v1.9.0", "1.10.2-rc.1+build" → numbers and a pre-release flag; null when it is not a version. */
function parseVersion(text: string): ParsedVersion | null {
  const match = /^v?(\d+(?:\.\d+)*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (match?.[1] === undefined) return null;
  return { numbers: match[1].split('.').map(Number), preRelease: match[2] !== undefined };
}

/**
 * Compares two versions part by part as numbers (so 1.10.0 is newer than 1.9.0; missing parts count
 * as 0). Negative when `a` is older, positive when newer, 0 when equal; null when either is not a
 * version at all.
 */
export function compareVersions(a: string, b: string): number | null {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (left === null || right === null) return null;
  const length = Math.max(left.numbers.length, right.numbers.length);
  for (let index = 0; index < length; index += 1) {
    const difference = (left.numbers[index] ?? 0) - (right.numbers[index] ?? 0);
    if (difference !== 0) return Math.sign(difference);
  }
  if (left.preRelease === right.preRelease) return 0;
  return left.preRelease ? -1 : 1;
}

/** The highest of `versions` that parse, or null. */
export function newestVersion(versions: readonly string[]): string | null {
  let newest: string | null = null;
  for (const version of versions) {
    if (parseVersion(version) === null) continue;
    if (newest === null || (compareVersions(version, newest) ?? 0) > 0) newest = version;
  }
  return newest;
}

/**
 * The policy from the admin status. The server hands out the agent of its own release through the
 * install command, so its ServerVersion counts as an available agent version alongside any the
 * update feed lists (which is empty for a self-hosted server without one).
 */
export function versionPolicy(status: {
  MinimumRequiredAgentVersion: string;
  ServerVersion: string;
  AvailableAgentVersions: readonly { version: string }[];
}): AgentVersionPolicy {
  const available = [status.ServerVersion, ...status.AvailableAgentVersions.map((entry) => entry.version)];
  return { minimum: status.MinimumRequiredAgentVersion, newest: newestVersion(available) };
}

/** The state of an agent reporting `version` (null: it never said). */
export function agentVersionState(version: string | null, policy: AgentVersionPolicy): AgentVersionState {
  if (version === null) return 'unknown';
  const belowMinimum = compareVersions(version, policy.minimum);
  if (belowMinimum === null) return 'unknown';
  if (belowMinimum < 0) return 'incompatible';
  if (policy.newest !== null && (compareVersions(version, policy.newest) ?? 0) < 0) return 'outdated';
  return 'current';
}
