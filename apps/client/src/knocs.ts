import { GrantStatus, type AclEntry } from '@postern/protocol';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';

/**
 * Where a knoc stands for a machine that wants it open:
 * - `granted`: on the device (Granted), or on an allowlist the firewall has fetched (Read);
 * - `in-progress`: on its way (Pending, or Published on an allowlist not yet fetched);
 * - `failed`: the device refused (GrantError) or its agent is offline (AgentOffline);
 * - `not-granted`: nothing running in this session (Created, Revoking, Revoked, error on revoke), so
 *   a grant must be asked for.
 */
export type KnocPhase = 'granted' | 'in-progress' | 'failed' | 'not-granted';

const PHASES: Record<number, KnocPhase> = {
  [GrantStatus.Granted]: 'granted',
  [GrantStatus.Read]: 'granted',
  [GrantStatus.Pending]: 'in-progress',
  [GrantStatus.Published]: 'in-progress',
  [GrantStatus.GrantError]: 'failed',
  [GrantStatus.AgentOffline]: 'failed',
  [GrantStatus.Created]: 'not-granted',
  [GrantStatus.Revoking]: 'not-granted',
  [GrantStatus.Revoked]: 'not-granted',
  [GrantStatus.RevokeError]: 'not-granted',
};

/** The phase of a GrantStatus code; a code this client does not know counts as in progress. */
export function knocPhase(status: number): KnocPhase {
  return PHASES[status] ?? 'in-progress';
}

const STATUS_NAMES = new Map<number, string>(Object.entries(GrantStatus).map(([name, code]) => [code, name]));

/** The GrantStatus name of a code (`Granted`, `AgentOffline` …), or `Status7` for one it does not know. */
export function statusName(status: number): string {
  return STATUS_NAMES.get(status) ?? `Status${status}`;
}

/** What a person reads for a status code, for the text output. */
export function statusText(status: number): string {
  switch (status) {
    case GrantStatus.Granted:
      return 'granted';
    case GrantStatus.Read:
      return 'granted (allowlist fetched)';
    case GrantStatus.Published:
      return 'published on the allowlist, not yet fetched';
    case GrantStatus.Pending:
      return 'pending';
    case GrantStatus.GrantError:
      return 'grant failed';
    case GrantStatus.AgentOffline:
      return 'agent offline';
    case GrantStatus.Created:
      return 'not granted';
    case GrantStatus.Revoking:
      return 'being revoked';
    case GrantStatus.Revoked:
      return 'revoked';
    case GrantStatus.RevokeError:
      return 'revoke failed';
    default:
      return `status ${status}`;
  }
}

/** The knocs the user may use: shown to users and not disabled for the address the request came from. */
export function usableKnocs(acls: readonly AclEntry[]): AclEntry[] {
  return acls.filter((acl) => !acl.HideFromUsers && !acl.DisableForUser);
}

/**
 * The knocs `requested` names, each by its exact ACL ID or exact name (Description), in the order
 * asked and without repeats; no names: every knoc the user may use. A name matching nothing, or
 * several knocs, is exit 5, listing what the user may use. A knoc hidden from users can still be
 * named (an admin may hide a machine's knocs from dashboards).
 */
export function resolveKnocs(acls: readonly AclEntry[], requested: readonly string[]): AclEntry[] {
  const usable = usableKnocs(acls);
  if (requested.length === 0) {
    if (usable.length === 0) {
      throw new ClientError(
        'the user may use no knocs (none are assigned, or all are excluded here)',
        ExitCode.KnocUnknown,
      );
    }
    return usable;
  }
  const resolved = new Map<string, AclEntry>();
  const unknown: string[] = [];
  for (const name of requested) {
    const byId = acls.filter((acl) => acl.ACLID === name || acl.ID === name);
    const matches = byId.length > 0 ? byId : acls.filter((acl) => acl.Description === name);
    const [only, ...others] = matches;
    if (only === undefined) {
      unknown.push(name);
    } else if (others.length > 0) {
      const ids = matches.map((acl) => acl.ACLID).join(', ');
      throw new ClientError(`"${name}" names several knocs (IDs ${ids}); name one by its ID`, ExitCode.KnocUnknown);
    } else {
      resolved.set(only.ACLID, only);
    }
  }
  if (unknown.length > 0) {
    const names = unknown.map((name) => `"${name}"`).join(', ');
    const may = usable.length === 0 ? 'none' : usable.map((acl) => `"${acl.Description}" (${acl.ACLID})`).join(', ');
    throw new ClientError(`no knoc ${names} for this user; it may use: ${may}`, ExitCode.KnocUnknown);
  }
  return [...resolved.values()];
}
