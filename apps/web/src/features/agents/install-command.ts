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
 * this server (it carries the agent bundle's checksum, and the server's public URL when one is set)
 * and run it as root with the agent's token. `server` adds `--server`, for a server without a public
 * URL, whose script knows no address of its own.
 */
export function installCommand(origin: string, token: string, server?: string): string {
  const scriptUrl = `${trimSlashes(origin)}${AGENT_INSTALL_SCRIPT_PATH}`;
  const command = `curl -fsSL ${shellWord(scriptUrl)} | sudo sh -s -- --token ${shellWord(token)}`;
  return server === undefined ? command : `${command} --server ${shellWord(trimSlashes(server))}`;
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, '');
}
