import type { ReactNode } from 'react';
import type { GroupRecord, UserRecord } from '@postern/protocol';
import { QueryState } from '@/components/QueryState';
import { groupsApi } from '@/features/groups/api';
import { usersApi } from '@/features/users/api';

/** The users and groups lists (for the Users step and the review), with their loading and errors. */
export function WithMembersData({ children }: { children: (users: UserRecord[], groups: GroupRecord[]) => ReactNode }) {
  const users = usersApi.useList();
  const groups = groupsApi.useList();
  return (
    <QueryState {...users}>
      {(userList) => <QueryState {...groups}>{(groupList) => children(userList, groupList)}</QueryState>}
    </QueryState>
  );
}
