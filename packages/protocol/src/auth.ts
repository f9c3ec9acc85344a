import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE } from './common.js';

/** How a user account proves who it is; `oidc`: at the users' OpenID Connect provider. */
export const USER_AUTH_TYPES = ['local', 'SAML', 'LDAP', 'apikey', 'oidc'] as const;
export const UserAuthType = z.enum(USER_AUTH_TYPES);
export type UserAuthType = z.infer<typeof UserAuthType>;

/** How an admin account proves who it is; `oidc`: at the admins' OpenID Connect provider. */
export const ADMIN_AUTH_TYPES = ['local', 'SAML', 'LDAP', 'oidc'] as const;
export const AdminAuthType = z.enum(ADMIN_AUTH_TYPES);
export type AdminAuthType = z.infer<typeof AdminAuthType>;

/**
 * Sign-in attempts are capped well above any real credential so that a huge body cannot make the
 * server hash megabytes; the 8–64 rule applies when a password is set, not when one is tried.
 */
const MAX_CREDENTIAL_LENGTH = 1024;

/**
 * POST /api/login. A name with a control character is refused as malformed (400) whatever accounts
 * exist: no account can have one (see RequiredName). The password is not checked here: one with NUL
 * gets the answer of a wrong password (see ldap-bind.ts).
 */
export const LoginBody = z.object({
  UserName: z
    .string()
    .trim()
    .min(1)
    .max(MAX_CREDENTIAL_LENGTH)
    .regex(NO_CONTROL_CHARACTERS, NO_CONTROL_CHARACTERS_MESSAGE),
  Password: z.string().min(1).max(MAX_CREDENTIAL_LENGTH),
  /** "This is a public computer": a short session whose cookie dies with the browser. */
  KioskMode: z.boolean().default(false),
});
export type LoginBody = z.infer<typeof LoginBody>;

/** POST /api/admin/login */
export const AdminLoginBody = LoginBody.omit({ KioskMode: true });
export type AdminLoginBody = z.infer<typeof AdminLoginBody>;

/** What the web app keeps in session storage about a signed-in user. */
export const UserSessionInfo = z.object({
  Name: z.string(),
  UserName: z.string(),
  AuthType: UserAuthType,
  /** ISO 8601 instant at which the session, and every grant made in it, ends. */
  Ends: z.string(),
  KioskMode: z.boolean(),
  /** Whether the user lands on the new dashboard (/home/new) rather than /home. */
  NewUserDashboard: z.boolean(),
});
export type UserSessionInfo = z.infer<typeof UserSessionInfo>;
export const LoginResponse = dataEnvelope(UserSessionInfo);
export type LoginResponse = z.infer<typeof LoginResponse>;

/** What the web app keeps in session storage about a signed-in admin. */
export const AdminSessionInfo = z.object({
  Name: z.string(),
  UserName: z.string(),
  AuthType: AdminAuthType,
  /** The account signs in with a second factor (TOTP). */
  TotpEnabled: z.boolean(),
  /** The account has enrolled an authenticator and verified a code from it. */
  AdminTotpVerified: z.boolean(),
  /** The admin may postpone setting up a second factor ("Do this next time"). */
  TotpEnrolmentDeferable: z.boolean(),
  /**
   * The account holds passkeys (webauthn.ts): a sign-in waiting for its second factor may finish with
   * one, and with one only while AdminTotpVerified is false. Left out where the server did not look.
   */
  HasPasskeys: z.boolean().optional(),
});
export type AdminSessionInfo = z.infer<typeof AdminSessionInfo>;
export const AdminLoginResponse = dataEnvelope(AdminSessionInfo);
export type AdminLoginResponse = z.infer<typeof AdminLoginResponse>;
