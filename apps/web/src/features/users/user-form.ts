import dayjs from 'dayjs';
import { z } from 'zod';
import {
  ErrorCodes,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  USER_SESSION_MINUTES_DEFAULT,
  USER_SESSION_MINUTES_MAX,
  USER_SESSION_MINUTES_MIN,
  type UserAuthType,
  type UserCreateBody,
  type UserRecord,
  type UserUpdateBody,
} from '@postern/protocol';

/** When a key created with an apikey user expires (spec §9: 12 months, 24 months, never). */
export const API_KEY_EXPIRIES = ['12', '24', 'never'] as const;
export type ApiKeyExpiry = (typeof API_KEY_EXPIRIES)[number];

/**
 * The user dialog's fields. Paths match the wire names (`ThirdPartyAuth.DN`, `ApiKey.Name`) so a
 * server refusal naming a field lands on it. Numbers are `number | ''`, as Mantine's NumberInput
 * gives them; the `ApiKey` choice exists only on create.
 */
export interface UserFormValues {
  Name: string;
  UserName: string;
  Company: string;
  AuthType: UserAuthType;
  Duration: number | string;
  SessionLimit: number | string;
  PlainPassword: string;
  ConfirmPassword: string;
  TOTPEnabled: boolean;
  /** A datetime-local value ("2026-11-22T09:00") in the admin's time zone, or ''. */
  ValidUntil: string;
  ThirdPartyAuth: { DN: string };
  ApiKey: { Choice: 'new' | 'none'; Name: string; Expiry: ApiKeyExpiry | '' };
}

/** Spec §4: the username follows the name (lowercase, spaces to dots) until the admin edits it. */
export function deriveUserName(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '.');
}

/** Only local and LDAP accounts take a TOTP second factor: SAML gets it from the IdP, keys never sign in. */
export const offersTotp = (authType: UserAuthType): boolean => authType === 'local' || authType === 'LDAP';

const DATETIME_LOCAL = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/;

/** An ISO instant as a datetime-local value in this browser's zone; '' for none. */
export const toDateTimeLocal = (iso: string | null): string =>
  iso === null ? '' : dayjs(iso).format('YYYY-MM-DDTHH:mm');

/** The fields of a new user: Duration 480 and SessionLimit the licence's (spec §5, §9). */
export function newUserValues(maxSessionLimit: number | null): UserFormValues {
  return {
    Name: '',
    UserName: '',
    Company: '',
    AuthType: 'local',
    Duration: USER_SESSION_MINUTES_DEFAULT,
    SessionLimit: maxSessionLimit ?? '',
    PlainPassword: '',
    ConfirmPassword: '',
    TOTPEnabled: false,
    ValidUntil: '',
    ThirdPartyAuth: { DN: '' },
    ApiKey: { Choice: 'new', Name: '', Expiry: '' },
  };
}

/** The fields of an existing user; passwords start empty (empty keeps the current one). */
export function existingUserValues(user: UserRecord): UserFormValues {
  return {
    ...newUserValues(null),
    Name: user.Name,
    UserName: user.UserName,
    Company: user.Company,
    AuthType: user.AuthType,
    Duration: user.Duration,
    SessionLimit: user.SessionLimit ?? '',
    TOTPEnabled: user.TOTPEnabled,
    ValidUntil: toDateTimeLocal(user.ValidUntil),
    ThirdPartyAuth: { DN: user.ThirdPartyAuth?.DN ?? '' },
  };
}

/** Name, UserName and Company: at most 200 characters, as the protocol's RequiredName. */
const NAME_MAX_LENGTH = 200;

const isWholeNumber = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);

/**
 * The spec's user rules (§5) as a schema over the form values; messages are i18n keys. `mode`
 * decides whether a local password is required; `maxSessionLimit` is the licence's (null: none).
 */
export function userFormSchema(mode: 'create' | 'edit', maxSessionLimit: number | null) {
  // One refinement over the whole form, so every rule reports at once (zod skips object refinements
  // after a field's own issue).
  return z.custom<UserFormValues>().superRefine((values, context) => {
    const issue = (path: string[], message: string) => context.addIssue({ code: 'custom', path, message });

    if (values.Name.trim() === '') issue(['Name'], 'usersScreen.validation.nameRequired');
    else if (values.Name.trim().length > NAME_MAX_LENGTH) issue(['Name'], 'form.tooLong');
    if (values.UserName.trim() === '') issue(['UserName'], 'usersScreen.validation.userNameRequired');
    else if (values.UserName.trim().length > NAME_MAX_LENGTH) issue(['UserName'], 'form.tooLong');
    if (values.Company.trim().length > NAME_MAX_LENGTH) issue(['Company'], 'form.tooLong');

    if (values.Duration === '') issue(['Duration'], 'usersScreen.validation.durationRequired');
    else if (
      !isWholeNumber(values.Duration) ||
      values.Duration < USER_SESSION_MINUTES_MIN ||
      values.Duration > USER_SESSION_MINUTES_MAX
    ) {
      issue(['Duration'], ErrorCodes.userDurationRange);
    }

    const limit = values.SessionLimit;
    if (maxSessionLimit !== null) {
      if (!isWholeNumber(limit) || limit < 1 || limit > maxSessionLimit) {
        issue(['SessionLimit'], 'usersScreen.validation.sessionLimitRange');
      }
    } else if (limit !== '' && (!isWholeNumber(limit) || limit < 1)) {
      issue(['SessionLimit'], 'usersScreen.validation.sessionLimitMin');
    }

    if (values.ValidUntil !== '' && (!DATETIME_LOCAL.test(values.ValidUntil) || !dayjs(values.ValidUntil).isValid())) {
      issue(['ValidUntil'], 'usersScreen.validation.validUntilInvalid');
    }

    if (values.AuthType === 'local') {
      const password = values.PlainPassword;
      const tooShortOrLong = password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH;
      // On edit an empty password keeps the current one.
      if ((mode === 'create' || password !== '') && tooShortOrLong) issue(['PlainPassword'], ErrorCodes.passwordLength);
      if (password !== '' && values.ConfirmPassword !== password) {
        issue(['ConfirmPassword'], ErrorCodes.passwordsDontMatch);
      }
    }

    if (values.AuthType === 'LDAP' && values.ThirdPartyAuth.DN.trim() === '') {
      issue(['ThirdPartyAuth', 'DN'], ErrorCodes.ldapDnRequired);
    }

    if (mode === 'create' && values.AuthType === 'apikey' && values.ApiKey.Choice === 'new') {
      if (values.ApiKey.Name.trim() === '') issue(['ApiKey', 'Name'], 'usersScreen.validation.apiKeyNameRequired');
      if (values.ApiKey.Expiry === '') issue(['ApiKey', 'Expiry'], 'usersScreen.validation.apiKeyExpiryRequired');
    }
  });
}

/** The ISO expiry of a key created now; undefined for "never" (no expiry is sent, spec §4). */
export function apiKeyExpiresAt(expiry: ApiKeyExpiry, now: Date): string | undefined {
  if (expiry === 'never') return undefined;
  return dayjs(now).add(Number(expiry), 'month').toISOString();
}

/** The fields both create and update send, from valid form values. */
function commonBody(values: UserFormValues) {
  const local = values.AuthType === 'local' && values.PlainPassword !== '';
  return {
    Name: values.Name.trim(),
    Company: values.Company.trim(),
    Duration: Number(values.Duration),
    SessionLimit: values.SessionLimit === '' ? null : Number(values.SessionLimit),
    AuthType: values.AuthType,
    UserName: values.UserName.trim(),
    TOTPEnabled: offersTotp(values.AuthType) && values.TOTPEnabled,
    ValidUntil: values.ValidUntil === '' ? null : dayjs(values.ValidUntil).toISOString(),
    ThirdPartyAuth: values.AuthType === 'LDAP' ? { DN: values.ThirdPartyAuth.DN.trim() } : null,
    // Sent only when there is a new password: the server keeps the current one otherwise.
    ...(local ? { PlainPassword: values.PlainPassword, ConfirmPassword: values.ConfirmPassword } : {}),
  };
}

/** POST /api/admin/users from valid form values; `now` dates the key's expiry. */
export function toCreateBody(values: UserFormValues, now: Date): z.input<typeof UserCreateBody> {
  const body = { ...commonBody(values), Disabled: false };
  if (values.AuthType !== 'apikey' || values.ApiKey.Choice !== 'new' || values.ApiKey.Expiry === '') return body;
  const expiresAt = apiKeyExpiresAt(values.ApiKey.Expiry, now);
  return {
    ...body,
    ApiKey: { Name: values.ApiKey.Name.trim(), ...(expiresAt === undefined ? {} : { ExpiredAfter: expiresAt }) },
  };
}

/** PUT /api/admin/users/:id: the form's fields plus what the dialog does not edit, kept as it is. */
export function toUpdateBody(values: UserFormValues, user: UserRecord): UserUpdateBody {
  return {
    ...commonBody(values),
    ID: user.ID,
    // Neither can change on edit (the server refuses); sent as they are.
    UserName: user.UserName,
    AuthType: user.AuthType,
    AclIds: user.AclIds,
    Disabled: user.Disabled,
  };
}
