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
  loginEnabled: boolean;
  createdAt: number;
  updatedAt: number;
  lastLogin: number | null;
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
  disabled: boolean;
  validUntil: number | null;
  createdAt: number;
  updatedAt: number;
  lastLogin: number | null;
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
}

export interface AuditLogTable {
  /** Time-ordered UUID (v7), so ordering by id is ordering by time. */
  id: string;
  createdAt: number;
  action: string;
  /** JSON of the entry's inner fields (UserName, AdminName, IpAddress, …). */
  detail: string;
}

export interface SettingsTable {
  key: string;
  /** JSON value. */
  value: string;
  updatedAt: number;
}

export interface Database {
  admins: AdminsTable;
  users: UsersTable;
  userSessions: UserSessionsTable;
  adminSessions: AdminSessionsTable;
  auditLog: AuditLogTable;
  settings: SettingsTable;
}
