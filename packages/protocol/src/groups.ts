import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { Id, RequiredName } from './common.js';

/**
 * local: members chosen by admins. saml: members are the SAML users whose assertion names the group.
 * dynamic: created by Postern when an assertion names a group nobody defined; admins can attach ACLs.
 */
export const GROUP_TYPES = ['dynamic', 'local', 'saml'] as const;
export const GroupType = z.enum(GROUP_TYPES);
export type GroupType = z.infer<typeof GroupType>;

export const GroupRecord = z.object({
  ID: Id,
  Name: z.string(),
  Description: z.string(),
  Type: GroupType,
  ACLIDs: z.array(Id),
  UserIDs: z.array(Id),
});
export type GroupRecord = z.infer<typeof GroupRecord>;
export const GroupResponse = dataEnvelope(GroupRecord);
export const GroupListResponse = dataEnvelope(z.array(GroupRecord));

const groupFields = {
  Name: RequiredName,
  Description: z.string().trim().max(1000).default(''),
  Type: GroupType,
  ACLIDs: z.array(Id).default([]),
  /** Local groups only; SAML and dynamic groups take their members from assertions. */
  UserIDs: z.array(Id).default([]),
};

/** POST /api/admin/groups */
export const GroupCreateBody = z.object(groupFields);
export type GroupCreateBody = z.infer<typeof GroupCreateBody>;

/** PUT /api/admin/groups/{id}: the type cannot change. */
export const GroupUpdateBody = z.object({ ...groupFields, ID: Id });
export type GroupUpdateBody = z.infer<typeof GroupUpdateBody>;
