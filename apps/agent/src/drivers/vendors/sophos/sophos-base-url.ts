/** The port both Sophos APIs listen on unless the backend's Hostname names another (VENDORS.md 1.5, 1.6). */
export const SOPHOS_API_PORT = 4444;

/**
 * `https://<Hostname>` with the Sophos admin port 4444 added when the Hostname has no port, and a
 * bare IPv6 address put in brackets. Sophos UTM's restd and the SFOS XML API both live on the
 * WebAdmin/webconsole port, so an admin naming just the appliance means that port.
 */
export function sophosBaseUrl(hostname: string): string {
  const host = hostname.trim();
  if (host.startsWith('[')) return `https://${host.endsWith(']') ? `${host}:${SOPHOS_API_PORT}` : host}`;
  const colons = host.match(/:/g)?.length ?? 0;
  if (colons > 1) return `https://[${host}]:${SOPHOS_API_PORT}`;
  return `https://${colons === 1 ? host : `${host}:${SOPHOS_API_PORT}`}`;
}
