import { z } from 'zod';

/**
 * The audit catalogue: every action the server records. The web app translates each name; a test
 * fails when one lacks an English or German text.
 */
export const AuditActions = {
  UserLogin: 'UserLogin',
  UserLoginFailed: 'UserLoginFailed',
  UserLogout: 'UserLogout',
  AdminLogin: 'AdminLogin',
  AdminLoginFailed: 'AdminLoginFailed',
  AdminLogout: 'AdminLogout',
  AdminCreatedAutomatically: 'AdminCreatedAutomatically',
  AdminCreated: 'AdminCreated',
  AdminPasswordReset: 'AdminPasswordReset',
  AdminUpdated: 'AdminUpdated',
  AdminDeleted: 'AdminDeleted',
  AdminTotpReset: 'AdminTotpReset',
  AdminSessionsInvalidated: 'AdminSessionsInvalidated',
  AdminSessionDeleted: 'AdminSessionDeleted',
  UserCreated: 'UserCreated',
  UserCreatedBySaml: 'UserCreatedBySaml',
  /** A user created at their first OpenID Connect sign-in. */
  UserCreatedByOidc: 'UserCreatedByOidc',
  UserUpdated: 'UserUpdated',
  UserDeleted: 'UserDeleted',
  UserTotpReset: 'UserTotpReset',
  UserSessionsInvalidated: 'UserSessionsInvalidated',
  UserSessionDeleted: 'UserSessionDeleted',
  SessionLimitEnforced: 'SessionLimitEnforced',
  PasswordChanged: 'PasswordChanged',
  TotpEnrolled: 'TotpEnrolled',
  TotpEnrolmentDeferred: 'TotpEnrolmentDeferred',
  TotpFailed: 'TotpFailed',
  SignInBlocked: 'SignInBlocked',
  /** An account's failures from many addresses filled its ceiling: sign-ins wait up to a minute. */
  SignInSlowed: 'SignInSlowed',
  /** Ten second-factor codes failed since the account last signed in: one attempt a day from now on. */
  SecondFactorBlocked: 'SecondFactorBlocked',
  GroupCreated: 'GroupCreated',
  GroupUpdated: 'GroupUpdated',
  GroupDeleted: 'GroupDeleted',
  ApiKeyCreated: 'ApiKeyCreated',
  ApiKeyUpdated: 'ApiKeyUpdated',
  ApiKeyDeleted: 'ApiKeyDeleted',
  LogsCleared: 'LogsCleared',
  SettingsUpdated: 'SettingsUpdated',
  AuthenticationSettingsUpdated: 'AuthenticationSettingsUpdated',
  SamlKeysGenerated: 'SamlKeysGenerated',
  LicenceUpdated: 'LicenceUpdated',
  AgentCreated: 'AgentCreated',
  AgentUpdated: 'AgentUpdated',
  AgentDeleted: 'AgentDeleted',
  AgentTokenRotated: 'AgentTokenRotated',
  AgentConnected: 'AgentConnected',
  AgentDisconnected: 'AgentDisconnected',
  AgentAuthFailed: 'AgentAuthFailed',
  AgentEnrolled: 'AgentEnrolled',
  BackendCreated: 'BackendCreated',
  BackendUpdated: 'BackendUpdated',
  BackendDeleted: 'BackendDeleted',
  KnocCreated: 'KnocCreated',
  KnocUpdated: 'KnocUpdated',
  KnocDeleted: 'KnocDeleted',
  ClickToGrant: 'ClickToGrant',
  ClickToRevoke: 'ClickToRevoke',
  Grant: 'Grant',
  GrantFailed: 'GrantFailed',
  Revoke: 'Revoke',
  RevokeFailed: 'RevokeFailed',
  AdminBreakGlassGrant: 'AdminBreakGlassGrant',
  /** An admin's one-minute "Test this knoc" grant; IpAddress is the address, ended early with a Revoke. */
  AdminKnocTest: 'AdminKnocTest',
  AllowlistRead: 'AllowlistRead',
  AllowlistReadRefused: 'AllowlistReadRefused',
  /** A sealed secret could not be opened; Description names its table, column and row (at most hourly per row). */
  SecretUnreadable: 'SecretUnreadable',
  /** Passkeys (webauthn.ts): added, renamed or removed by their owner; Description names the passkey. */
  PasskeyAdded: 'PasskeyAdded',
  PasskeyRenamed: 'PasskeyRenamed',
  PasskeyRemoved: 'PasskeyRemoved',
  /** A passkey's signature counter went back (a cloned authenticator?): the sign-in was refused. */
  PasskeyCounterRegressed: 'PasskeyCounterRegressed',
  /** An administrator removed every passkey of a user, or of another admin (Description names them). */
  UserPasskeysReset: 'UserPasskeysReset',
  AdminPasskeysReset: 'AdminPasskeysReset',
} as const;
export type AuditAction = (typeof AuditActions)[keyof typeof AuditActions];
export const ALL_AUDIT_ACTIONS: readonly AuditAction[] = Object.values(AuditActions);

/** The inner fields of an audit entry; which ones are set depends on the action. */
export const AuditDetail = z.object({
  UserName: z.string().optional(),
  AdminName: z.string().optional(),
  AgentName: z.string().optional(),
  IpAddress: z.string().optional(),
  ErrorMessage: z.string().optional(),
  AclDescription: z.string().optional(),
  Description: z.string().optional(),
});
export type AuditDetail = z.infer<typeof AuditDetail>;

/**
 * An audit entry as the API shows it: `Entry` has one key, the action's name. `Actor` is who acted
 * and `Target` whom or what the entry is about (a user, an admin, a knoc, an agent), each drawn from
 * the inner fields by the action's rules; absent when the entry names no one in that role.
 */
export const AuditEntry = z.object({
  Date: z.string(),
  Entry: z.record(z.string(), AuditDetail),
  Actor: z.string().optional(),
  Target: z.string().optional(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;
