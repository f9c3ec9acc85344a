import { FmcDomains } from './firepower-responses.js';

/** The domains a login's `DOMAINS` header lists (JSON), or none when it is missing or unreadable. */
export function parseDomainsHeader(value: string | null): FmcDomains {
  if (value === null) return [];
  try {
    const parsed = FmcDomains.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/**
 * The UUID of the domain every config call goes to. `wanted` is the backend's Domain: empty for the
 * login's default (`DOMAIN_UUID`), else a domain's UUID or its full name (`Global/Branch`), matched
 * without regard to case. Throws naming the domains the user may use when `wanted` is not one of them.
 */
export function chooseDomain(wanted: string, domains: FmcDomains, loginDefault: string | null): string {
  if (wanted === '') {
    const uuid = loginDefault ?? (domains.length === 1 ? domains[0]?.uuid : undefined);
    if (uuid === undefined) throw new Error('firepower: the FMC login named no domain (DOMAIN_UUID)');
    return uuid;
  }
  const key = wanted.toLowerCase();
  const found = domains.find((domain) => domain.uuid.toLowerCase() === key || domain.name.toLowerCase() === key);
  if (found !== undefined) return found.uuid;
  const available = domains.map((domain) => `${domain.name} (${domain.uuid})`).join(', ');
  throw new Error(
    `firepower: the FMC user may not work in domain "${wanted}" (the backend's Domain); ` +
      (available === '' ? 'the login listed no domains' : `its domains: ${available}`),
  );
}
