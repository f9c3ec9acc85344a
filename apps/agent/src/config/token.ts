import { ConfigError } from './config-error.js';
import { SETTINGS, isWellFormedToken } from './settings.js';
import { Secret } from './secret.js';
import { readPrivateFile } from './private-file.js';

/** A token given directly (already parsed) or through a file, with the label of its source. */
export interface TokenSources {
  token?: { value: string; label: string };
  tokenFile?: { path: string; label: string };
}

/**
 * The agent's token from exactly one of `token` and `tokenFile`. Both at once is refused rather
 * than ranked: with two secrets configured, the operator cannot tell which one the agent sends.
 */
export function resolveToken(sources: TokenSources): { token: Secret; tokenFile: string | null } {
  const { token, tokenFile } = sources;
  if (token !== undefined && tokenFile !== undefined) {
    throw new ConfigError(
      tokenFile.label,
      `the token is also given by ${token.label}; give it one way only (prefer the file)`,
    );
  }
  if (token !== undefined) return { token: new Secret(token.value), tokenFile: null };
  if (tokenFile !== undefined)
    return { token: readTokenFile(tokenFile.path, tokenFile.label), tokenFile: tokenFile.path };
  throw new ConfigError(
    SETTINGS.tokenFile.env,
    `no token given; set ${SETTINGS.tokenFile.env} (or --token-file, or tokenFile in the config file) or ${SETTINGS.token.env}`,
  );
}

/** Reads a token file, refusing one that other users could read: they could then act as this agent. */
function readTokenFile(file: string, label: string): Secret {
  const content = (readPrivateFile(file, label) ?? '').trim();
  if (content === '') throw new ConfigError(label, `${file} is empty`);
  // The same rule as a token given directly; the message never repeats the file's content.
  if (!isWellFormedToken(content)) {
    throw new ConfigError(label, `the token in ${file} ${SETTINGS.token.expect}`);
  }
  return new Secret(content);
}
