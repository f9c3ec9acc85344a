/**
 * The attributes Postern reads from a verified assertion, by the names common IdPs use: the LDAP /
 * eduPerson names and OIDs (SimpleSAMLphp, Shibboleth, Keycloak), and the claim URIs of Microsoft
 * Entra ID / AD FS. Values are whatever node-saml parsed: a string, or a list of them for
 * multi-valued attributes; anything else (nested XML, xsi:nil) is ignored.
 */

/** Group memberships; all listed attributes are merged. */
const GROUP_ATTRIBUTES = [
  'groups',
  'memberOf',
  'isMemberOf',
  'urn:oid:1.3.6.1.4.1.5923.1.5.1.1',
  'http://schemas.xmlsoap.org/claims/Group',
  'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups',
] as const;

/** A full display name, in order of preference. */
const DISPLAY_NAME_ATTRIBUTES = [
  'displayName',
  'urn:oid:2.16.840.1.113730.3.1.241',
  'http://schemas.microsoft.com/identity/claims/displayname',
  'cn',
  'urn:oid:2.5.4.3',
] as const;
const GIVEN_NAME_ATTRIBUTES = [
  'givenName',
  'urn:oid:2.5.4.42',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname',
] as const;
const SURNAME_ATTRIBUTES = [
  'sn',
  'surname',
  'urn:oid:2.5.4.4',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname',
] as const;
/** Entra ID sends the UPN here; it is a last resort before the NameID itself. */
const NAME_CLAIM_ATTRIBUTES = ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name'] as const;

/** Minutes the session may last (shorter than the user's Duration only; see sessionMinutes). */
const SESSION_DURATION_ATTRIBUTE = 'sessionDuration';

/** A group name longer than this is not a name an administrator could have created; it is skipped. */
const MAX_GROUP_NAME_LENGTH = 200;
/** More groups than this in one assertion is a misconfigured IdP (e.g. every group of a tenant). */
const MAX_GROUPS = 1000;
const MAX_NAME_LENGTH = 200;

type Attributes = Record<string, unknown>;

/** Every string value of an attribute, trimmed, empty ones dropped. */
function attributeValues(attributes: Attributes, name: string): string[] {
  if (!Object.prototype.hasOwnProperty.call(attributes, name)) return [];
  const raw = attributes[name];
  const values = Array.isArray(raw) ? (raw as unknown[]) : [raw];
  return values
    .filter((value): value is string => typeof value === 'string')
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

function firstValue(attributes: Attributes, names: readonly string[]): string | undefined {
  for (const name of names) {
    const [value] = attributeValues(attributes, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The display name for a new (or changed) SAML user; the NameID when the IdP sends none. */
export function displayName(attributes: Attributes, nameId: string): string {
  const full = firstValue(attributes, DISPLAY_NAME_ATTRIBUTES);
  const given = firstValue(attributes, GIVEN_NAME_ATTRIBUTES);
  const surname = firstValue(attributes, SURNAME_ATTRIBUTES);
  const parts = [given, surname].filter((part): part is string => part !== undefined);
  const name =
    full ?? (parts.length > 0 ? parts.join(' ') : undefined) ?? firstValue(attributes, NAME_CLAIM_ATTRIBUTES) ?? nameId;
  return name.slice(0, MAX_NAME_LENGTH);
}

export interface GroupNames {
  names: string[];
  /** Values dropped for being too long or beyond MAX_GROUPS, for the log. */
  skipped: number;
}

/** The group names the assertion carries, each once, in the order first seen. */
export function groupNames(attributes: Attributes): GroupNames {
  const seen = new Set<string>();
  let skipped = 0;
  for (const name of GROUP_ATTRIBUTES) {
    for (const value of attributeValues(attributes, name)) {
      if (value.length > MAX_GROUP_NAME_LENGTH || (seen.size >= MAX_GROUPS && !seen.has(value))) skipped += 1;
      else seen.add(value);
    }
  }
  return { names: [...seen], skipped };
}

/**
 * The sessionDuration attribute, in whole minutes, when present and valid. It can only shorten a
 * session: the caller caps it at the user's own Duration (see saml-signin.ts for why).
 */
export function sessionDurationMinutes(attributes: Attributes): number | 'invalid' | undefined {
  const [value] = attributeValues(attributes, SESSION_DURATION_ATTRIBUTE);
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) return 'invalid';
  const minutes = Number(value);
  return minutes >= 1 ? minutes : 'invalid';
}
