import * as client from 'openid-client';
import type { AppContext } from '../app-context.js';
import { allowsPlainHttp, type OidcRealmSettings } from './oidc-settings.js';
import { readBodyCapped } from '../lib/capped-body.js';

/** One deadline for each request to the provider (discovery, JWKS, token, userinfo). */
export const OIDC_REQUEST_TIMEOUT_MS = 10_000;
/** Answers larger than this are refused while they stream in: metadata, keys and tokens are small. */
export const OIDC_MAX_RESPONSE_BYTES = 1024 * 1024;
/**
 * Clocks of provider and Postern may differ this much when judging an ID token's `exp` and `nbf`
 * (the same allowance SAML gets).
 */
export const OIDC_CLOCK_TOLERANCE_S = 60;

/**
 * ID token signature algorithms Postern accepts, in the order it prefers them; never `none`, never an
 * HMAC keyed with the client secret (only the provider's published keys prove who signed).
 */
const SIGNING_ALGORITHMS = [
  'RS256',
  'PS256',
  'ES256',
  'RS384',
  'PS384',
  'ES384',
  'RS512',
  'PS512',
  'ES512',
  'Ed25519',
  'EdDSA',
];

/**
 * The provider could not be reached or its answer could not be read (refused connection, timeout,
 * too large). A TypeError, so openid-client passes it through untouched and the caller can tell it
 * from a refusal.
 */
export class ProviderUnreachableError extends TypeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProviderUnreachableError';
  }
}

/** The provider's metadata or configuration cannot be used; the message says why, for admins. */
export class ProviderMetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderMetadataError';
  }
}

/**
 * Every request to the provider: no redirect followed (openid-client asks for `manual`, and a 3xx is
 * then refused as an unexpected answer), a deadline, and the body read with a size cap before
 * openid-client parses it. Failures become ProviderUnreachableError.
 */
export const providerFetch: client.CustomFetch = async (url, options) => {
  const host = hostOf(url);
  const signal = AbortSignal.any([
    AbortSignal.timeout(OIDC_REQUEST_TIMEOUT_MS),
    ...(options.signal === undefined ? [] : [options.signal]),
  ]);
  let response: Response;
  try {
    response = await fetch(url, { ...options, redirect: 'manual', signal });
  } catch (error) {
    throw new ProviderUnreachableError(`${host} could not be reached (${reasonOf(error)})`, { cause: error });
  }
  let body: Buffer | null;
  try {
    body = await readBodyCapped(
      response,
      OIDC_MAX_RESPONSE_BYTES,
      () => new ProviderUnreachableError(`the answer is larger than ${OIDC_MAX_RESPONSE_BYTES} bytes`),
    );
  } catch (error) {
    if (error instanceof ProviderUnreachableError) throw error;
    throw new ProviderUnreachableError(`${host}: the answer could not be read (${reasonOf(error)})`, { cause: error });
  }
  // Statuses that may carry no body must be rebuilt without one.
  const empty = [101, 204, 205, 304].includes(response.status);
  return new Response(empty ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
};

/**
 * Reads and checks the provider's metadata (OpenID Connect Discovery): openid-client requires JSON,
 * an `issuer` equal to the configured one and https endpoints (plain http only to a loopback
 * issuer); Postern also needs the endpoints it uses, S256 PKCE where the provider lists its methods,
 * a signing algorithm it accepts and a client authentication it can do. Throws
 * ProviderUnreachableError or ProviderMetadataError (also for openid-client's refusals).
 */
export async function discoverProvider(r: OidcRealmSettings): Promise<client.ServerMetadata> {
  let config: client.Configuration;
  try {
    config = await client.discovery(new URL(r.issuer), r.clientId || 'postern', undefined, client.None(), {
      execute: allowsPlainHttp(r.issuer) ? [client.allowInsecureRequests] : [],
      [client.customFetch]: providerFetch,
      timeout: OIDC_REQUEST_TIMEOUT_MS / 1000,
    });
  } catch (error) {
    if (error instanceof ProviderUnreachableError) throw error;
    throw new ProviderMetadataError(`the provider's metadata is not usable: ${describeClientError(error)}`);
  }
  const metadata = config.serverMetadata();
  const problems = metadataProblems(metadata);
  if (problems.length > 0) throw new ProviderMetadataError(problems.join('; '));
  return { ...metadata };
}

/** What in the metadata stops sign-in through it (empty: usable). */
export function metadataProblems(metadata: client.ServerMetadata): string[] {
  const problems: string[] = [];
  if (typeof metadata.authorization_endpoint !== 'string') problems.push('it names no authorization_endpoint');
  if (typeof metadata.token_endpoint !== 'string') problems.push('it names no token_endpoint');
  if (typeof metadata.jwks_uri !== 'string') problems.push('it names no jwks_uri (the keys ID tokens are signed with)');
  const methods: unknown = metadata.code_challenge_methods_supported;
  if (methods !== undefined && !(Array.isArray(methods) && methods.includes('S256'))) {
    problems.push(`it does not support PKCE with S256 (code_challenge_methods_supported: ${JSON.stringify(methods)})`);
  }
  if (signingAlgorithm(metadata) === null) {
    problems.push(
      `it signs ID tokens with none of ${SIGNING_ALGORITHMS.join(', ')} (id_token_signing_alg_values_supported: ` +
        `${JSON.stringify(metadata.id_token_signing_alg_values_supported)})`,
    );
  }
  if (clientAuthMethod(metadata) === null) {
    problems.push('it offers neither client_secret_basic nor client_secret_post for the token endpoint');
  }
  return problems;
}

/** The ID token algorithm to require: RS256 where offered (the default of the specification), else the first accepted. */
function signingAlgorithm(metadata: client.ServerMetadata): string | null {
  const listed: unknown = metadata.id_token_signing_alg_values_supported;
  const offered: unknown[] = listed === undefined ? ['RS256'] : Array.isArray(listed) ? listed : [];
  return SIGNING_ALGORITHMS.find((alg) => offered.includes(alg)) ?? null;
}

/** client_secret_basic (the default when the provider lists none), else client_secret_post. */
function clientAuthMethod(metadata: client.ServerMetadata): 'basic' | 'post' | null {
  const listed: unknown = metadata.token_endpoint_auth_methods_supported;
  const offered: unknown[] = listed === undefined ? ['client_secret_basic'] : Array.isArray(listed) ? listed : [];
  if (offered.includes('client_secret_basic')) return 'basic';
  return offered.includes('client_secret_post') ? 'post' : null;
}

/**
 * A client for one step of a sign-in, on the provider's (checked) metadata. A new one each time, so
 * its key set cache is new too: a callback always checks the ID token against the keys the provider
 * publishes now, and a rotated key is used at once. Signatures are always checked (openid-client
 * only does when asked: enableNonRepudiationChecks); time is the app's clock, with the tolerance above.
 */
export function oidcClient(
  ctx: Pick<AppContext, 'clock'>,
  metadata: client.ServerMetadata,
  r: OidcRealmSettings,
  clientSecret: string,
): client.Configuration {
  const method = clientAuthMethod(metadata);
  const alg = signingAlgorithm(metadata);
  if (method === null || alg === null) throw new ProviderMetadataError(metadataProblems(metadata).join('; '));
  const config = new client.Configuration(
    metadata,
    r.clientId,
    {
      client_secret: clientSecret,
      id_token_signed_response_alg: alg,
      [client.clockSkew]: Math.round((ctx.clock.now() - Date.now()) / 1000),
      [client.clockTolerance]: OIDC_CLOCK_TOLERANCE_S,
    },
    method === 'basic' ? client.ClientSecretBasic(clientSecret) : client.ClientSecretPost(clientSecret),
  );
  config[client.customFetch] = providerFetch;
  config.timeout = OIDC_REQUEST_TIMEOUT_MS / 1000;
  if (allowsPlainHttp(r.issuer)) client.allowInsecureRequests(config);
  client.enableNonRepudiationChecks(config);
  return config;
}

/** An openid-client error as a line for the log and the audit entry (never a token). */
export function describeClientError(error: unknown): string {
  if (error instanceof client.ResponseBodyError) {
    return `${error.error}${error.error_description === undefined ? '' : `: ${error.error_description}`} (HTTP ${error.status})`;
  }
  if (error instanceof client.WWWAuthenticateChallengeError) {
    // A refused client authentication (client_secret_basic) answers 401 with its error in this header.
    const challenges = error.cause
      .map((challenge) => {
        const { error: code, error_description: description } = challenge.parameters;
        return [challenge.scheme, code, description].filter((part) => part !== undefined && part !== '').join(' ');
      })
      .join('; ');
    return `${challenges} (HTTP ${error.status})`;
  }
  if (error instanceof client.AuthorizationResponseError) {
    return `${error.error}${error.error_description === undefined ? '' : `: ${error.error_description}`}`;
  }
  if (error instanceof client.ClientError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    const status = error.cause instanceof Response ? ` (HTTP ${error.cause.status})` : '';
    return `${error.message}${cause}${status}${error.code === undefined ? '' : ` [${error.code}]`}`;
  }
  return reasonOf(error);
}

/** Whether an openid-client error means the provider is down rather than refusing: unreachable or a 5xx. */
export function isProviderOutage(error: unknown): boolean {
  if (error instanceof ProviderUnreachableError) return true;
  if (error instanceof client.ResponseBodyError || error instanceof client.WWWAuthenticateChallengeError) {
    return error.status >= 500;
  }
  return error instanceof client.ClientError && error.cause instanceof Response && error.cause.status >= 500;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the provider';
  }
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError') return `no answer within ${OIDC_REQUEST_TIMEOUT_MS} ms`;
  return error.cause instanceof Error ? error.cause.message : error.message;
}
