import type { Authenticator, Authorization } from './authenticator.js';

export interface StaticTokenOptions {
  token: string;
  /** The header carrying it; default Authorization. */
  header?: string;
  /** Written before the token (`Bearer` for FortiOS); '' sends the token alone (an X-API-Key header). */
  scheme?: string;
}

/**
 * An API key or bearer token from the backend's configuration (FortiOS, FortiManager, PAN-OS,
 * Sophos UTM). It never changes while the agent runs, so a 401 means the device refused it: the
 * call fails with that, and nothing is retried.
 */
export function staticToken(options: StaticTokenOptions): Authenticator {
  const header = options.header ?? 'Authorization';
  const scheme = options.scheme ?? 'Bearer';
  const authorization: Authorization = {
    headers: { [header]: scheme === '' ? options.token : `${scheme} ${options.token}` },
    credential: 'static',
  };
  return {
    authorize: () => Promise.resolve(authorization),
    renew: () => Promise.resolve(false),
    secrets: () => [options.token],
  };
}
