import type { AuditAction, AuditDetail } from '@postern/protocol';

/** Who acted and whom or what the entry is about; null where the entry names nobody. */
export interface AuditParties {
  actor: string | null;
  target: string | null;
}

type Field = keyof AuditDetail;

/**
 * Where an action keeps its two parties. The inner fields name accounts by kind, not by role:
 * `UserName` is who signed in on UserLogin but whom an admin created on UserCreated, so the console's
 * single "User name" column mixed the two. Each action says which fields hold its actor and its target
 * (the first one set wins); a missing `actor` means the usual one: the admin, else the user (an API
 * caller or the user at the portal), else the agent.
 */
interface PartyFields {
  actor?: readonly Field[];
  target?: readonly Field[];
}

const BY_SOMEONE: readonly Field[] = ['AdminName', 'UserName', 'AgentName'];
const NOBODY: readonly Field[] = [];
const ON_USER: PartyFields = { actor: ['AdminName'], target: ['UserName'] };
const ON_KNOC: PartyFields = { target: ['AclDescription'] };
const ON_AGENT: PartyFields = { actor: ['AdminName', 'UserName'], target: ['AgentName'] };
const ON_NAMED: PartyFields = { actor: ['AdminName', 'UserName'], target: ['Description'] };
const BY_AGENT: PartyFields = { actor: ['AgentName'] };
const BY_THE_SYSTEM_ON_ADMIN: PartyFields = { actor: NOBODY, target: ['AdminName'] };
/** Marks the four changes to admin accounts, whose fields depend on who made them (see below). */
const ON_ADMIN = 'on-admin';

const PARTY_FIELDS: Record<AuditAction, PartyFields | typeof ON_ADMIN> = {
  UserLogin: {},
  UserLoginFailed: {},
  UserLogout: {},
  AdminLogin: {},
  AdminLoginFailed: {},
  AdminLogout: {},
  AdminCreatedAutomatically: BY_THE_SYSTEM_ON_ADMIN,
  AdminCreated: ON_ADMIN,
  // Only the command line resets an admin's password; the entry names the admin whose it was.
  AdminPasswordReset: BY_THE_SYSTEM_ON_ADMIN,
  AdminUpdated: ON_ADMIN,
  AdminDeleted: ON_ADMIN,
  AdminTotpReset: ON_ADMIN,
  // The session ids and counts in Description name no one.
  AdminSessionsInvalidated: {},
  AdminSessionDeleted: {},
  UserCreated: ON_USER,
  UserCreatedBySaml: { actor: ['UserName'], target: ['UserName'] },
  UserCreatedByOidc: { actor: ['UserName'], target: ['UserName'] },
  UserUpdated: ON_USER,
  UserDeleted: ON_USER,
  UserTotpReset: ON_USER,
  UserSessionsInvalidated: {},
  UserSessionDeleted: {},
  // The server ended the user's older sessions itself.
  SessionLimitEnforced: { actor: NOBODY, target: ['UserName'] },
  PasswordChanged: {},
  TotpEnrolled: {},
  TotpEnrolmentDeferred: {},
  TotpFailed: {},
  SignInBlocked: {},
  SignInSlowed: {},
  SecondFactorBlocked: {},
  GroupCreated: ON_NAMED,
  GroupUpdated: ON_NAMED,
  GroupDeleted: ON_NAMED,
  ApiKeyCreated: ON_NAMED,
  ApiKeyUpdated: ON_NAMED,
  ApiKeyDeleted: ON_NAMED,
  LogsCleared: {},
  SettingsUpdated: {},
  AuthenticationSettingsUpdated: {},
  SamlKeysGenerated: {},
  LicenceUpdated: {},
  AgentCreated: ON_AGENT,
  AgentUpdated: ON_AGENT,
  AgentDeleted: ON_AGENT,
  AgentTokenRotated: ON_AGENT,
  AgentConnected: BY_AGENT,
  AgentDisconnected: BY_AGENT,
  AgentAuthFailed: BY_AGENT,
  AgentEnrolled: BY_AGENT,
  BackendCreated: ON_NAMED,
  BackendUpdated: ON_NAMED,
  BackendDeleted: ON_NAMED,
  KnocCreated: ON_KNOC,
  KnocUpdated: ON_KNOC,
  KnocDeleted: ON_KNOC,
  ClickToGrant: ON_KNOC,
  ClickToRevoke: ON_KNOC,
  Grant: ON_KNOC,
  GrantFailed: ON_KNOC,
  Revoke: ON_KNOC,
  RevokeFailed: ON_KNOC,
  AdminBreakGlassGrant: ON_KNOC,
  AdminKnocTest: ON_KNOC,
  AllowlistRead: ON_KNOC,
  AllowlistReadRefused: ON_KNOC,
  SecretUnreadable: {},
  PasskeyAdded: {},
  PasskeyRenamed: {},
  PasskeyRemoved: {},
  PasskeyCounterRegressed: {},
  UserPasskeysReset: ON_USER,
  AdminPasskeysReset: ON_ADMIN,
};

/**
 * A change to an admin account names the changed admin in Description when an admin made it in the
 * console, and in AdminName alone when the command line did (no one signed in acted).
 */
function adminAccountFields(detail: AuditDetail): PartyFields {
  return detail.Description === undefined || detail.Description === ''
    ? BY_THE_SYSTEM_ON_ADMIN
    : { actor: ['AdminName'], target: ['Description'] };
}

function firstSet(detail: AuditDetail, fields: readonly Field[]): string | null {
  for (const field of fields) {
    const value = detail[field];
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

/** The actor and target of an entry; an action this release does not know gets the usual actor only. */
export function auditParties(action: string, detail: AuditDetail): AuditParties {
  const known = Object.hasOwn(PARTY_FIELDS, action) ? PARTY_FIELDS[action as AuditAction] : {};
  const fields = known === ON_ADMIN ? adminAccountFields(detail) : known;
  return {
    actor: firstSet(detail, fields.actor ?? BY_SOMEONE),
    target: firstSet(detail, fields.target ?? NOBODY),
  };
}
