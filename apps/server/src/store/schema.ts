import type { Generated } from 'kysely';

/**
 * The store's tables as Kysely sees them (camelCase here, snake_case in SQL via CamelCasePlugin).
 * Conventions that keep one codebase on SQLite and PostgreSQL: ids are text (UUIDs), instants are
 * epoch milliseconds in bigint columns, booleans are read back as 0/1 on SQLite (normalise with
 * `Boolean()`), JSON is text.
 */
export interface AdminsTable {
  id: string;
  name: string;
  userName: string;
  authType: string;
  passwordHash: string | null;
  ldapDn: string | null;
  totpEnabled: boolean;
  totpVerified: boolean;
  totpSecret: string | null;
  totpPendingSecret: string | null;
  totpLastStep: number | null;
  totpDeferrals: Generated<number>;
  loginEnabled: boolean;
  createdAt: number;
  updatedAt: number;
  lastLogin: number | null;
  /** Device cookies issued at or before this instant are not honoured (auth/device-cookie.ts). */
  deviceCookiesValidAfter: Generated<number>;
  /** The language the account chose (`en`, `de`), or null: the browser's decides. */
  language: string | null;
  /** Whose names this account's user name is unique among: '' Postern's directory, 'oidc' (account-provider.ts). */
  provider: Generated<string>;
  /** The OpenID Connect `iss` and `sub` the account was bound to at its first sign-in there, or null. */
  externalIssuer: string | null;
  externalSubject: string | null;
}

export interface UsersTable {
  id: string;
  name: string;
  userName: string;
  company: string;
  authType: string;
  passwordHash: string | null;
  ldapDn: string | null;
  /** Session length in minutes. */
  durationMinutes: number;
  /** Concurrent sessions allowed; null means the licence's limit. */
  sessionLimit: number | null;
  totpEnabled: boolean;
  totpVerified: boolean;
  totpSecret: string | null;
  totpPendingSecret: string | null;
  totpLastStep: number | null;
  disabled: boolean;
  validUntil: number | null;
  createdAt: number;
  updatedAt: number;
  lastLogin: number | null;
  /** Device cookies issued at or before this instant are not honoured (auth/device-cookie.ts). */
  deviceCookiesValidAfter: Generated<number>;
  /** The language the account chose (`en`, `de`), or null: the browser's decides. */
  language: string | null;
  /** Whose names this account's user name is unique among: '' Postern's directory, 'oidc' (account-provider.ts). */
  provider: Generated<string>;
  /** The OpenID Connect `iss` and `sub` the account was bound to at its first sign-in there, or null. */
  externalIssuer: string | null;
  externalSubject: string | null;
}

export interface UserSessionsTable {
  id: string;
  /** SHA-256 of the cookie token; the token itself is never stored. */
  tokenHash: string;
  userId: string;
  createdAt: number;
  endsAt: number;
  /** Set when the session ended early (logout, invalidation); null while it runs. */
  endedAt: number | null;
  endReason: string | null;
  ipAddress: string;
  userAgent: string;
  kiosk: boolean;
  stage: Generated<SessionStage>;
}

export interface AdminSessionsTable {
  id: string;
  tokenHash: string;
  adminId: string;
  createdAt: number;
  endsAt: number;
  endedAt: number | null;
  endReason: string | null;
  ipAddress: string;
  userAgent: string;
  stage: Generated<SessionStage>;
}

export interface AuditLogTable {
  /** Time-ordered UUID (v7), so ordering by id is ordering by time. */
  id: string;
  createdAt: number;
  action: string;
  /** JSON of the entry's inner fields (UserName, AdminName, IpAddress, …). */
  detail: string;
  /** Who acted and whom the entry is about, drawn from the detail when written (audit/parties.ts). */
  actor: string | null;
  target: string | null;
}

export interface SettingsTable {
  key: string;
  /** JSON value. */
  value: string;
  updatedAt: number;
}

/** 'active', or waiting for the second factor: a code ('totp') or an enrolment ('totp-enrol'). */
export type SessionStage = 'active' | 'totp' | 'totp-enrol';

export interface KnocsTable {
  id: string;
  description: string;
  url: Generated<string>;
  icon: Generated<string>;
  category: Generated<string>;
  parentId: string | null;
  hideFromAdmins: Generated<boolean>;
  hideFromUsers: Generated<boolean>;
  createdAt: number;
  updatedAt: number;
  lastModifiedBy: Generated<string>;
  backendId: string | null;
  clickToGrant: Generated<boolean>;
  cgnatOpen: Generated<boolean>;
  autoBrowseUsers: Generated<boolean>;
  /** Seconds; 0 means no limit beyond the session. */
  maximumGrantDuration: Generated<number>;
  /** JSON of the knoc's IpExclusions. */
  ipExclusions: Generated<string>;
  /** JSON of the knoc's GrantType. */
  grantType: Generated<string>;
  /** JSON of the knoc's ACL config (one key naming the backend type); sensitive values encrypted. */
  config: Generated<string>;
  /** Appended as `knoctoken` when the dashboard auto-browses to the knoc's URL. */
  uriToken: Generated<string>;
}

export interface AgentsTable {
  id: string;
  name: string;
  tokenHash: string;
  /** SecretBox ciphertext of the token, so an admin can view it again. */
  tokenSecret: string;
  version: string | null;
  lastSeen: number | null;
  externalIp: string | null;
  /** JSON of the last reported AgentCapabilities. */
  capabilities: string | null;
  generation: Generated<number>;
  connectionId: string | null;
  createdAt: number;
  updatedAt: number;
  lastModifiedBy: Generated<string>;
  /** The agent's registered Ed25519 public key (SPKI DER, base64url); null until it enrols, and after a rotation. */
  publicKey: string | null;
  /** When that key was registered. */
  enrolledAt: number | null;
  /**
   * The X25519 key (SPKI DER, base64url) vendor credentials and sensitive script variables for this
   * agent are sealed to; null until the agent sends one, and after a rotation.
   */
  sealingKey: string | null;
  /** When that key was registered. */
  sealingKeyRegisteredAt: number | null;
}

export interface BackendsTable {
  id: string;
  name: string;
  agentId: string | null;
  type: string;
  /** JSON of the type's fields; secret fields hold SecretBox ciphertexts. */
  config: string;
  createdAt: number;
  updatedAt: number;
  lastModifiedBy: Generated<string>;
}

export interface GrantsTable {
  id: string;
  aclId: string;
  sessionId: string | null;
  userId: string | null;
  userName: string;
  ip: string;
  origin: GrantOrigin;
  /** A GrantStatus code. */
  status: number;
  error: Generated<string>;
  createdAt: number;
  updatedAt: number;
  expiresAt: number;
  endedAt: number | null;
  endReason: string | null;
  /** The agent is to read its device back after applying this grant's entry (a knoc test). */
  verify: Generated<boolean>;
  /** What the agent's read-back found (a DeviceReadBack: held, absent, unreadable), null until it reported one. */
  readBack: string | null;
  /** Why the device could not be read back; '' otherwise. */
  readBackDetail: Generated<string>;
}

/** Where a granted address came from; 'user' grants move when the user's address changes. */
export type GrantOrigin = 'user' | 'discovered' | 'fixed' | 'admin';

export interface SessionIpsTable {
  sessionId: string;
  ip: string;
  port: number;
  createdAt: number;
}

export interface UserAclsTable {
  userId: string;
  aclId: string;
}

export interface GroupsTable {
  id: string;
  name: string;
  description: string;
  type: string;
  createdAt: number;
  updatedAt: number;
}

export interface GroupUsersTable {
  groupId: string;
  userId: string;
}

export interface GroupAclsTable {
  groupId: string;
  aclId: string;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  keyHash: string;
  /** JSON array of scope strings. */
  scopes: string;
  /** JSON array of { Prefix, Note }. */
  allowedFrom: string;
  expiresAt: number | null;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface LoginThrottleTable {
  /**
   * 'pair:<address> <name>', 'address:<address>', 'device:<nonce>' or 'apikey:address:<address>'
   * (see auth/throttle.ts).
   */
  key: string;
  failures: number;
  windowStartedAt: number;
  blockedUntil: number | null;
}

/** The per-account ceiling on failed sign-ins: a leaky bucket per account (see auth/throttle.ts). */
export interface LoginCeilingTable {
  /** 'account:<name>'. */
  key: string;
  /** When the bucket will have drained empty (GCRA's theoretical arrival time). */
  drainedAt: number;
  /** Failures that left the bucket full since it was last empty; the first one is audited. */
  slowedFailures: number;
}

/** Consecutive second-factor failures of one account name (see sessions/second-factor-throttle.ts). */
export interface SecondFactorFailuresTable {
  /** The account name, trimmed and lower-cased: a user's or an administrator's, one budget for both forms. */
  account: string;
  /** Attempts counted since the last completed sign-in; each counts before its code is checked. */
  failures: number;
  lastFailedAt: number;
  /** No code is checked for this account before this instant. */
  blockedUntil: number;
}

/** Facts about the store itself, one row per key (see migrations/0009-store-meta.ts). */
export interface StoreMetaTable {
  key: string;
  value: string;
}

export interface SamlRequestsTable {
  id: string;
  realm: string;
  createdAt: number;
}

export interface SamlAssertionsTable {
  id: string;
  expiresAt: number;
}

/** An OpenID Connect sign-in started and not yet finished (oidc/oidc-flows.ts). */
export interface OidcFlowsTable {
  /** SHA-256 (base64url) of the flow's `state`. */
  id: string;
  realm: string;
  nonce: string;
  /** SHA-256 (base64url) of the flow cookie of the browser that started it. */
  browserHash: string;
  kiosk: boolean;
  createdAt: number;
  expiresAt: number;
}

/** The provider's logout URL for a session signed in through OpenID Connect (oidc/oidc-sign-outs.ts). */
export interface OidcSignOutsTable {
  sessionId: string;
  realm: string;
  /** Sealed (secrets/secret-box.ts): the URL carries the ID token as id_token_hint. */
  endSessionUrl: string;
  expiresAt: number;
}

/** A registered passkey (webauthn/passkeys.repo.ts). */
export interface PasskeysTable {
  id: string;
  /** 'user' or 'admin': whose id `accountId` is. */
  realm: string;
  accountId: string;
  /** base64url. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  counter: number;
  /** JSON array of transport names. */
  transports: string;
  name: string;
  /** The RP ID the credential was registered for. */
  rpId: string;
  backedUp: boolean;
  discoverable: boolean;
  createdAt: number;
  lastUsedAt: number | null;
}

/** A WebAuthn challenge handed out and not yet answered (webauthn/ceremonies.ts). */
export interface WebauthnCeremoniesTable {
  /** SHA-256 (base64url) of the ceremony's handle. */
  id: string;
  realm: string;
  purpose: string;
  sessionId: string | null;
  accountId: string | null;
  challenge: string;
  rpId: string;
  origin: string;
  expiresAt: number;
}

/** A named job's lease: only its holder runs it until it expires (cluster/lease.ts). */
export interface LeasesTable {
  name: string;
  /** The holding server's replica id. */
  holder: string;
  expiresAt: number;
}

/** A process's probe of whether the store takes writes again (store/write-health.ts). */
export interface WriteProbesTable {
  /** The probing server's replica id. */
  replica: string;
  writtenAt: number;
  /** Random base64, so the probe needs real room. */
  padding: string;
}

export interface Database {
  admins: AdminsTable;
  users: UsersTable;
  userSessions: UserSessionsTable;
  adminSessions: AdminSessionsTable;
  auditLog: AuditLogTable;
  settings: SettingsTable;
  knocs: KnocsTable;
  userAcls: UserAclsTable;
  groups: GroupsTable;
  groupUsers: GroupUsersTable;
  groupAcls: GroupAclsTable;
  apiKeys: ApiKeysTable;
  loginThrottle: LoginThrottleTable;
  loginCeiling: LoginCeilingTable;
  secondFactorFailures: SecondFactorFailuresTable;
  samlRequests: SamlRequestsTable;
  samlAssertions: SamlAssertionsTable;
  oidcFlows: OidcFlowsTable;
  oidcSignOuts: OidcSignOutsTable;
  passkeys: PasskeysTable;
  webauthnCeremonies: WebauthnCeremoniesTable;
  storeMeta: StoreMetaTable;
  agents: AgentsTable;
  backends: BackendsTable;
  grants: GrantsTable;
  sessionIps: SessionIpsTable;
  leases: LeasesTable;
  writeProbes: WriteProbesTable;
}
