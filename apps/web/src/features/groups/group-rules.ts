import type {
  GroupCreateBody,
  GroupRecord,
  GroupType,
  GroupUpdateBody,
  KnocRecord,
  UserRecord,
} from '@postern/protocol';
import { nameIssueKey } from '@/lib/forms/zod-form-errors';

/** The group dialog's values: exactly the wire fields. */
export interface GroupFormValues {
  Name: string;
  Description: string;
  Type: GroupType;
  ACLIDs: string[];
  UserIDs: string[];
}

/** The dialog's starting values: the group's own, or an empty local group. */
export function groupFormValues(group?: GroupRecord): GroupFormValues {
  return {
    Name: group?.Name ?? '',
    Description: group?.Description ?? '',
    Type: group?.Type ?? 'local',
    ACLIDs: [...(group?.ACLIDs ?? [])],
    UserIDs: [...(group?.UserIDs ?? [])],
  };
}

/**
 * Whether admins choose the members. SAML and dynamic groups take theirs from SAML assertions; the
 * server refuses any change to them.
 */
export const membersChosenByAdmins = (type: GroupType) => type === 'local';

/** POST /api/admin/groups. A group whose members come from assertions is created without members. */
export function toGroupCreateBody(values: GroupFormValues): GroupCreateBody {
  return {
    Name: values.Name.trim(),
    Description: values.Description.trim(),
    Type: values.Type,
    ACLIDs: values.ACLIDs,
    UserIDs: membersChosenByAdmins(values.Type) ? values.UserIDs : [],
  };
}

/** PUT /api/admin/groups/{id}: ID, Name, Description, Type, ACLIDs, UserIDs (members from assertions sent back unchanged). */
export function toGroupUpdateBody(group: GroupRecord, values: GroupFormValues): GroupUpdateBody {
  return {
    ID: group.ID,
    Name: values.Name.trim(),
    Description: values.Description.trim(),
    // Fixed once created (spec); the group's own type, whatever the form holds.
    Type: group.Type,
    ACLIDs: values.ACLIDs,
    UserIDs: membersChosenByAdmins(group.Type) ? values.UserIDs : group.UserIDs,
  };
}

/** One entry of a checklist. */
export interface Choice {
  value: string;
  label: string;
  /** Whether it cannot be ticked or unticked. */
  disabled: boolean;
  /** Why, under the entry (a translation key); null when the list as a whole says it. */
  note: string | null;
}

const byLabel = (a: Choice, b: Choice) =>
  a.label.localeCompare(b.label, undefined, { sensitivity: 'base', numeric: true });

/**
 * The knocs a group can give, by name. Hidden helper knocs (a passive+ knoc's child, HideFromAdmins)
 * are left out, since membership goes through the parent; one the group already has stays listed,
 * so saving never drops it unseen.
 */
export function knocChoices(knocs: readonly KnocRecord[], selected: readonly string[]): Choice[] {
  return knocs
    .filter((knoc) => !knoc.HideFromAdmins || selected.includes(knoc.ID))
    .map((knoc) => ({ value: knoc.ID, label: knoc.Description || knoc.Name, disabled: false, note: null }))
    .sort(byLabel);
}

/**
 * The users of the members checklist, by name. SAML users are listed but disabled (spec): their
 * groups come from the identity provider. In a SAML or dynamic group every entry is disabled.
 */
export function userChoices(users: readonly UserRecord[], type: GroupType): Choice[] {
  return users
    .map((user) => {
      const saml = user.AuthType === 'SAML';
      return {
        value: user.ID,
        label: `${user.Name} (${user.UserName})`,
        disabled: saml || !membersChosenByAdmins(type),
        // In an assertion-fed group the list's description already says why every entry is fixed.
        note: saml && membersChosenByAdmins(type) ? 'groupsScreen.form.samlUser' : null,
      };
    })
    .sort(byLabel);
}

/** Texts for the protocol's generic name rule (its zod messages are developer English). */
export const groupIssueKey = nameIssueKey({
  required: 'groupsScreen.form.nameRequired',
  controlCharacters: 'groupsScreen.form.controlCharacters',
});
