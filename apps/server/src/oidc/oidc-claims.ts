import { NO_CONTROL_CHARACTERS } from '@postern/protocol';

/** The claims of a sign-in: the ID token's, completed by the userinfo answer. */
export type Claims = Record<string, unknown>;

/** A user name longer than this is no name an administrator could have given (RequiredName's bound). */
const MAX_USER_NAME_LENGTH = 200;
const MAX_NAME_LENGTH = 200;
/** As for SAML groups (saml-attributes.ts): longer names are skipped, more groups are a misconfiguration. */
const MAX_GROUP_NAME_LENGTH = 200;
const MAX_GROUPS = 1000;

/**
 * The claims of the ID token and of userinfo in one set: the ID token's win where both have a claim
 * (it is signed; userinfo's `sub` was already checked to be the same person).
 */
export function mergedClaims(idToken: Claims, userinfo: Claims | null): Claims {
  return { ...(userinfo ?? {}), ...idToken };
}

/** The value of `claim` as a single trimmed string, or undefined when absent, empty or not a string. */
function stringClaim(claims: Claims, claim: string): string | undefined {
  if (!Object.prototype.hasOwnProperty.call(claims, claim)) return undefined;
  const value = claims[claim];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * The user name the sign-in names in `claim`, or why there is none. A name with a control character
 * or beyond 200 characters is refused: no account can carry one.
 */
export function userNameClaim(claims: Claims, claim: string): { userName: string } | { problem: string } {
  const value = stringClaim(claims, claim);
  if (value === undefined) return { problem: `the claim ${claim} (the user name) is missing or not a string` };
  if (value.length > MAX_USER_NAME_LENGTH || !NO_CONTROL_CHARACTERS.test(value)) {
    return { problem: `the claim ${claim} is not a user name (too long, or with control characters)` };
  }
  return { userName: value };
}

/** The display name: `name`, else given and family names, else the user name. */
export function displayNameClaim(claims: Claims, userName: string): string {
  const full = stringClaim(claims, 'name');
  const parts = [stringClaim(claims, 'given_name'), stringClaim(claims, 'family_name')].filter(
    (part): part is string => part !== undefined,
  );
  const name = full ?? (parts.length > 0 ? parts.join(' ') : userName);
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').slice(0, MAX_NAME_LENGTH);
}

export interface GroupClaim {
  names: string[];
  /** Values dropped for being too long, not strings, or beyond MAX_GROUPS, for the log. */
  skipped: number;
}

/**
 * The group names in `claim` (a list of strings, or one string), each once in the order first seen.
 * An absent claim is no groups: the person's provider-given memberships then end, as with SAML.
 */
export function groupsClaim(claims: Claims, claim: string): GroupClaim {
  if (!Object.prototype.hasOwnProperty.call(claims, claim)) return { names: [], skipped: 0 };
  const raw = claims[claim];
  const values: unknown[] = Array.isArray(raw) ? raw : [raw];
  const seen = new Set<string>();
  let skipped = 0;
  for (const value of values) {
    const name = typeof value === 'string' ? value.trim() : '';
    if (name === '' || name.length > MAX_GROUP_NAME_LENGTH || !NO_CONTROL_CHARACTERS.test(name)) skipped += 1;
    else if (seen.size >= MAX_GROUPS && !seen.has(name)) skipped += 1;
    else seen.add(name);
  }
  return { names: [...seen], skipped };
}
