import { z } from 'zod';
import {
  Cidr,
  ErrorCodes,
  type AllowedFromEntry,
  type ApiKeyCreateBody,
  type ApiKeyRecord,
  type ApiKeyUpdateBody,
} from '@postern/protocol';
import { expiredAfterFor, type ApiKeyExpiryChoice } from './api-key-expiry';
import { choiceOfScopes, purposeOfScopes, scopesFor, type ApiKeyPurpose } from './api-key-scopes';

/** The values of the create/edit dialog. Expiry is '' until chosen (it is required on create). */
export interface ApiKeyFormValues {
  Name: string;
  Purpose: ApiKeyPurpose;
  AllowlistIds: string[];
  UserId: string;
  Expiry: ApiKeyExpiryChoice | '';
  AllowedFrom: AllowedFromEntry[];
}

/** Message keys of the dialog's own rules (the CIDR rule uses the shared err.invalidCidr). */
export const API_KEY_FORM_MESSAGES = {
  nameRequired: 'apiKeysScreen.validation.nameRequired',
  nameTaken: ErrorCodes.apiKeyNameExists,
  allowlistsRequired: 'apiKeysScreen.validation.allowlistsRequired',
  userRequired: 'apiKeysScreen.validation.userRequired',
  expiryRequired: 'apiKeysScreen.validation.expiryRequired',
  prefixRequired: 'apiKeysScreen.validation.prefixRequired',
  noteRequired: 'apiKeysScreen.validation.noteRequired',
  allowedFromRequired: 'apiKeysScreen.validation.allowedFromRequired',
  tooLong: 'form.tooLong',
} as const;
const M = API_KEY_FORM_MESSAGES;

/** Spec: the default allowed-from entries are "anywhere", IPv4 and IPv6. */
export const DEFAULT_ALLOWED_FROM_PREFIXES = ['0.0.0.0/0', '::/0'] as const;

/** The spec's five note placeholders (texts under apiKeysScreen.notePlaceholder.0–4). */
export const NOTE_PLACEHOLDER_COUNT = 5;

/** One of the five placeholders at random (spec §9); `random` is injectable for tests. */
export function pickNotePlaceholder(random: () => number = Math.random): number {
  return Math.min(NOTE_PLACEHOLDER_COUNT - 1, Math.floor(random() * NOTE_PLACEHOLDER_COUNT));
}

const AllowedFromRow = z.object({
  Prefix: z
    .string()
    .trim()
    .min(1, M.prefixRequired)
    // Only judged once filled in, so an empty field says "required" rather than "invalid".
    .refine((value) => value === '' || Cidr.safeParse(value).success, ErrorCodes.invalidCidr),
  Note: z.string().trim().min(1, M.noteRequired).max(200, M.tooLong),
});

/**
 * An empty list would mean "anywhere" to the create call and "nowhere" (a suspended key) to the
 * update call; neither is what an admin deleting the last row means, so one entry is required.
 */
export const AllowedFromList = z.array(AllowedFromRow).min(1, M.allowedFromRequired);

/** A new key's name: required, at most 200 characters, none of `takenNames` (names are unique). */
export function keyNameSchema(takenNames: readonly string[]) {
  const taken = new Set(takenNames.map((name) => name.trim()));
  return z
    .string()
    .trim()
    .min(1, M.nameRequired)
    .max(200, M.tooLong)
    .refine((name) => !taken.has(name), M.nameTaken);
}

/** The rules of the create dialog (spec §5); `takenNames` are the existing keys' names. */
export function createFormSchema(takenNames: readonly string[]) {
  return z
    .object({
      Name: keyNameSchema(takenNames),
      Expiry: z.string().min(1, M.expiryRequired),
      AllowedFrom: AllowedFromList,
    })
    .loose()
    .superRefine((values, context) => {
      const { Purpose, AllowlistIds, UserId } = values as unknown as ApiKeyFormValues;
      if (Purpose === 'allowlists' && AllowlistIds.length === 0) {
        context.addIssue({ code: 'custom', path: ['AllowlistIds'], message: M.allowlistsRequired });
      }
      if (Purpose === 'user_auth' && UserId === '') {
        context.addIssue({ code: 'custom', path: ['UserId'], message: M.userRequired });
      }
    });
}

/** On edit only AllowedFrom can change (spec §4), so only it is checked. */
export const EDIT_FORM_SCHEMA = z.object({ AllowedFrom: AllowedFromList }).loose();

/** The default allowed-from entries ("anywhere", spec §5) with their translated notes. */
export function defaultAllowedFrom(anywhereNotes: readonly [string, string]): AllowedFromEntry[] {
  return DEFAULT_ALLOWED_FROM_PREFIXES.map((Prefix, index) => ({ Prefix, Note: anywhereNotes[index] ?? '' }));
}

/** A new key's starting values; `anywhereNotes` are the translated notes of the two default entries. */
export function newKeyValues(anywhereNotes: readonly [string, string]): ApiKeyFormValues {
  return {
    Name: '',
    Purpose: 'allowlists',
    AllowlistIds: [],
    UserId: '',
    Expiry: '',
    AllowedFrom: defaultAllowedFrom(anywhereNotes),
  };
}

/** A stored key as dialog values; the purpose comes from its first scope. */
export function existingKeyValues(key: ApiKeyRecord): ApiKeyFormValues {
  const { allowlistIds, userId } = choiceOfScopes(key.Scopes);
  return {
    Name: key.Name,
    Purpose: purposeOfScopes(key.Scopes) ?? 'allowlists',
    AllowlistIds: [...allowlistIds],
    UserId: userId,
    Expiry: key.ExpiredAfter === null ? 'never' : '',
    AllowedFrom: key.AllowedFrom.map((entry) => ({ ...entry })),
  };
}

/** The entries as sent: prefix and note without surrounding blanks. */
export const trimmedEntries = (entries: readonly AllowedFromEntry[]) =>
  entries.map((entry) => ({ Prefix: entry.Prefix.trim(), Note: entry.Note.trim() }));

/** POST body of a validated create dialog, made at `now` (the expiry counts from then). */
export function toCreateBody(values: ApiKeyFormValues, now: Date): ApiKeyCreateBody {
  const scopes = scopesFor(values.Purpose, { allowlistIds: values.AllowlistIds, userId: values.UserId });
  const expiredAfter = values.Expiry === '' ? undefined : expiredAfterFor(values.Expiry, now);
  return {
    Name: values.Name.trim(),
    Scopes: scopes,
    AllowedFrom: trimmedEntries(values.AllowedFrom),
    ...(expiredAfter === undefined ? {} : { ExpiredAfter: expiredAfter }),
  };
}

/** PUT body of the edit dialog: the id and the only field that may change. */
export function toUpdateBody(key: ApiKeyRecord, values: ApiKeyFormValues): ApiKeyUpdateBody {
  return { ID: key.ID, AllowedFrom: trimmedEntries(values.AllowedFrom) };
}
