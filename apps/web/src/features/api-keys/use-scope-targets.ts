import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { KnocRecord, UserRecord } from '@postern/protocol';
import { api } from '@/lib/api/client';

/**
 * The knocs and users a key's scopes may name, for the names in the table and the dialog's choices.
 * Under this screen's own keys: the knocs and users screens own theirs and may shape them otherwise. Not
 * under ['apiKeys'], so saving a key does not reload both lists.
 */
export function useScopeTargets() {
  const knocs = useQuery({
    queryKey: ['apiKeyScopeTargets', 'knocs'],
    queryFn: ({ signal }) => api.get('/admin/knocs', z.array(KnocRecord), { signal }),
  });
  const users = useQuery({
    queryKey: ['apiKeyScopeTargets', 'users'],
    queryFn: ({ signal }) => api.get('/admin/users', z.array(UserRecord), { signal }),
  });
  return { knocs, users };
}
