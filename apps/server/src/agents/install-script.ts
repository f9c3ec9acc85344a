/**
 * The placeholders of apps/agent/install/install.sh and apps/client/install/install.sh, each inside
 * single quotes there. Each script names its own bundle's checksum.
 */
export const INSTALL_PLACEHOLDERS = {
  serverUrl: '@POSTERN_SERVER_URL@',
  bundleSha256: '@POSTERN_AGENT_SHA256@',
  clientBundleSha256: '@POSTERN_CLIENT_SHA256@',
  version: '@POSTERN_VERSION@',
} as const;

/** What the server fills into an install script. */
export interface InstallScriptValues {
  /**
   * The script's default server (the configured public URL), or null for none: the script then
   * requires --server, because an address guessed from the request could be anybody's.
   */
  serverUrl: string | null;
  bundleSha256: string;
  version: string;
  /** Where the template wants the checksum: the agent's placeholder unless given. */
  checksumPlaceholder?: typeof INSTALL_PLACEHOLDERS.bundleSha256 | typeof INSTALL_PLACEHOLDERS.clientBundleSha256;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/**
 * An origin made only of characters that mean nothing to a shell: http(s), a DNS name or a bracketed
 * IPv6 literal, an optional port, no path, user, query or anything else.
 */
const SAFE_ORIGIN = new RegExp(`^https?://(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9A-Fa-f:.]+\\])(?::\\d{1,5})?$`);
const SHA256_HEX = /^[0-9a-f]{64}$/;
const VERSION = /^[0-9A-Za-z.+-]{1,64}$/;

/**
 * The origin to embed in the install script, or null when `value` is not plainly one. The script runs
 * as root on the admin's host, so nothing a shell could read as more than text (quotes, $, backquotes,
 * spaces, ;, newlines) may reach it, whatever a Host header or a setting says: the value must parse
 * as an http(s) URL with nothing but a host and port, and the origin it yields must match a pattern
 * of harmless characters. Only ASCII is accepted: Host headers are ASCII, and the public URL setting
 * already holds an internationalised name in its punycode form.
 */
export function safeServerUrl(value: string): string | null {
  // The URL parser would silently drop tabs and newlines and trim spaces; such input is refused instead.
  if (!/^[\x21-\x7e]+$/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  if (url.pathname !== '/' && url.pathname !== '') return null;
  return SAFE_ORIGIN.test(url.origin) ? url.origin : null;
}

/**
 * The install script with the server's values filled in (a null server URL as an empty default).
 * Every value is checked against a pattern that cannot break out of the single quotes the template
 * puts around it; a value that fails throws, because serving a script built from it would be worse
 * than serving none.
 */
export function renderInstallScript(template: string, values: InstallScriptValues): string {
  const serverUrl = values.serverUrl === null ? '' : safeServerUrl(values.serverUrl);
  if (serverUrl === null) throw new Error('unsafe server URL for the install script');
  if (!SHA256_HEX.test(values.bundleSha256)) throw new Error('the bundle checksum is not a SHA-256');
  if (!VERSION.test(values.version)) throw new Error('unsafe version for the install script');
  return template
    .replaceAll(INSTALL_PLACEHOLDERS.serverUrl, serverUrl)
    .replaceAll(values.checksumPlaceholder ?? INSTALL_PLACEHOLDERS.bundleSha256, values.bundleSha256)
    .replaceAll(INSTALL_PLACEHOLDERS.version, values.version);
}
