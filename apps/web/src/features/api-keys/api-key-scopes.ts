/**
 * The spec's purposes of an API key and the scopes each gives (administration.md §4): allowlists →
 * `allowlist.read:{ACL ID}` per chosen allowlist, agent_register → `agent.register`, user_sessions →
 * `user.sessions`, user_auth → `user.auth:{user ID}`.
 */
export const API_KEY_PURPOSES = ['allowlists', 'agent_register', 'user_sessions', 'user_auth'] as const;
export type ApiKeyPurpose = (typeof API_KEY_PURPOSES)[number];

const ALLOWLIST_SCOPE = 'allowlist.read:';
const USER_AUTH_SCOPE = 'user.auth:';
const AGENT_REGISTER_SCOPE = 'agent.register';
const USER_SESSIONS_SCOPE = 'user.sessions';

/** What a purpose needs besides itself: the chosen allowlists (ACL ids) or the chosen user. */
export interface ScopeChoice {
  allowlistIds: readonly string[];
  userId: string;
}

/** The scopes to send for a purpose; only the purpose's own choice is used (a stale one is ignored). */
export function scopesFor(purpose: ApiKeyPurpose, choice: ScopeChoice): string[] {
  switch (purpose) {
    case 'allowlists':
      return [...new Set(choice.allowlistIds)].map((id) => `${ALLOWLIST_SCOPE}${id}`);
    case 'agent_register':
      return [AGENT_REGISTER_SCOPE];
    case 'user_sessions':
      return [USER_SESSIONS_SCOPE];
    case 'user_auth':
      return [`${USER_AUTH_SCOPE}${choice.userId}`];
  }
}

/** One scope read back: its purpose and the ACL or user id it names, if any. */
export interface ParsedScope {
  purpose: ApiKeyPurpose;
  /** The ACL id (allowlists) or user id (user_auth); '' for the scopes that name nothing. */
  target: string;
}

/** A scope's purpose and target, or null for a scope this console does not know. */
export function parseScope(scope: string): ParsedScope | null {
  if (scope.startsWith(ALLOWLIST_SCOPE)) return { purpose: 'allowlists', target: scope.slice(ALLOWLIST_SCOPE.length) };
  if (scope.startsWith(USER_AUTH_SCOPE)) return { purpose: 'user_auth', target: scope.slice(USER_AUTH_SCOPE.length) };
  if (scope === AGENT_REGISTER_SCOPE) return { purpose: 'agent_register', target: '' };
  if (scope === USER_SESSIONS_SCOPE) return { purpose: 'user_sessions', target: '' };
  return null;
}

/** Spec: "Purpose on edit derives from its first scope"; null when that scope is unknown. */
export function purposeOfScopes(scopes: readonly string[]): ApiKeyPurpose | null {
  const first = scopes[0];
  return first === undefined ? null : (parseScope(first)?.purpose ?? null);
}

/** The allowlists and user a stored key's scopes name, to fill the (disabled) fields on edit. */
export function choiceOfScopes(scopes: readonly string[]): ScopeChoice {
  const parsed = scopes.map(parseScope);
  return {
    allowlistIds: parsed.flatMap((scope) => (scope?.purpose === 'allowlists' ? [scope.target] : [])),
    userId: parsed.find((scope) => scope?.purpose === 'user_auth')?.target ?? '',
  };
}
