import { z } from 'zod';
import { UserCreateBody, UserCreateResponse, UserRecord, UserUpdateBody } from '@postern/protocol';
import { createResourceApi } from '@/lib/api/resource-api';

/** /api/admin/users: keys, list, update and delete, each refreshing every users query. */
export const usersApi = createResourceApi({
  key: 'users',
  path: '/admin/users',
  list: z.array(UserRecord),
  item: UserRecord,
  create: UserCreateBody,
  update: UserUpdateBody,
  /** The user and, for an apikey user created with a key, its plaintext (shown once). */
  created: UserCreateResponse.shape.data,
});
