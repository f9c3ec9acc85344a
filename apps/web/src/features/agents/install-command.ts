/** Where the server serves the install script (apps/server/src/agents/agent-install.routes.ts). */
export const AGENT_INSTALL_SCRIPT_PATH = '/api/agent/install.sh';

/** Characters a POSIX shell reads as plain text outside quotes. */
const SHELL_SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * `value` as one shell word: unchanged when it holds only harmless characters (tokens are base64url,
 * origins are host names), else in single quotes with any single quote spelled '\''. The admin pastes
 * this into a root shell, so nothing in it may be read as more than text.
 */
export function shellWord(value: string): string {
  if (SHELL_SAFE.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The one-line install command, exactly as the install script documents it: download the script from
 * this server (it carries the server's address and the agent bundle's checksum) and run it as root
 * with the agent's token.
 */
export function installCommand(origin: string, token: string): string {
  const scriptUrl = `${origin.replace(/\/+$/, '')}${AGENT_INSTALL_SCRIPT_PATH}`;
  return `curl -fsSL ${shellWord(scriptUrl)} | sudo sh -s -- --token ${shellWord(token)}`;
}
