import type { GroupRecord, UserRecord } from '@postern/protocol';

/** Who gets the knoc: users and groups by id. */
export interface MembersValues {
  userIds: string[];
  groupIds: string[];
}

/** The users a knoc can be given here: SAML users take theirs from their groups, so they are left out. */
export function selectableUsers(users: readonly UserRecord[]): UserRecord[] {
  return users.filter((user) => user.AuthType !== 'SAML');
}

/** The groups in the two tables of the Users step: SAML groups and local groups. */
export function groupTables(groups: readonly GroupRecord[]): { saml: GroupRecord[]; local: GroupRecord[] } {
  return {
    saml: groups.filter((group) => group.Type === 'saml'),
    local: groups.filter((group) => group.Type === 'local'),
  };
}

/** The ids with `id` added (checked) or removed (unchecked). */
export function toggledId(ids: readonly string[], id: string, checked: boolean): string[] {
  const rest = ids.filter((candidate) => candidate !== id);
  return checked ? [...rest, id] : rest;
}
