import type { KnocRecord, UserRecord } from '@postern/protocol';
import { parseScope } from './api-key-scopes';

/** Names of the knocs and users a key's scopes may name, by id. */
export interface ScopeNames {
  knocs: ReadonlyMap<string, string>;
  users: ReadonlyMap<string, string>;
}

/** The knocs an allowlists key may read: those on an allowlist backend. */
export function allowlistKnocs(knocs: readonly KnocRecord[]): KnocRecord[] {
  return knocs.filter((knoc) => knoc.BackendType === 'allowlist');
}

/**
 * The users a user_auth key may act as: the API-key users, since a key is a machine identity and
 * should not stand in for a person who signs in with a password or SSO.
 */
export function apiKeyUsers(users: readonly UserRecord[]): UserRecord[] {
  return users.filter((user) => user.AuthType === 'apikey');
}

/** Id → name lookups from whatever lists have loaded (missing lists give empty maps). */
export function scopeNames(knocs: readonly KnocRecord[] = [], users: readonly UserRecord[] = []): ScopeNames {
  return {
    knocs: new Map(knocs.map((knoc) => [knoc.ID, knoc.Name])),
    users: new Map(users.map((user) => [user.ID, user.Name === '' ? user.UserName : user.Name])),
  };
}

/** One scope as a translation key and its values, e.g. "Allowlist: Office VPN". */
export interface ScopeLabel {
  key: string;
  values: Record<string, string>;
}

/**
 * What a scope allows, in words. A named knoc or user that is unknown (deleted, or its list did not
 * load) is shown by id rather than hidden, so the admin still sees that the key reaches something.
 */
export function scopeLabel(scope: string, names: ScopeNames): ScopeLabel {
  const parsed = parseScope(scope);
  switch (parsed?.purpose) {
    case 'allowlists':
      return {
        key: 'apiKeysScreen.scope.allowlist',
        values: { name: names.knocs.get(parsed.target) ?? parsed.target },
      };
    case 'user_auth':
      return { key: 'apiKeysScreen.scope.userAuth', values: { name: names.users.get(parsed.target) ?? parsed.target } };
    case 'agent_register':
      return { key: 'apiKeysScreen.scope.agentRegister', values: {} };
    case 'user_sessions':
      return { key: 'apiKeysScreen.scope.userSessions', values: {} };
    case undefined:
      return { key: 'apiKeysScreen.scope.unknown', values: { scope } };
  }
}

/** The allowed-from column's text: the prefixes, in order. */
export function allowedFromText(entries: readonly { Prefix: string }[]): string {
  return entries.map((entry) => entry.Prefix).join(', ');
}
