import type { OidcRealm, OidcTestResult } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import type { ServerMetadata } from 'openid-client';
import { readSettings } from '../settings/settings.js';
import { SecretUnreadableError } from '../secrets/secret-box.js';
import { discoverProvider, metadataProblems, providerFetch, ProviderUnreachableError } from './oidc-client.js';
import type { OidcMetadataSource } from './oidc-metadata-source.js';
import { allowsPlainHttp, oidcRealmSettings, openClientSecret } from './oidc-settings.js';

/**
 * POST /api/admin/settings/oidc/test: tries the realm's stored configuration against its provider the
 * way a sign-in would, step by step, and says what is wrong in words an administrator can act on:
 * the issuer unreachable, its metadata not JSON or naming another issuer, an endpoint missing, S256
 * not supported, the key set unreachable or empty. It never fails itself; every problem is a line of
 * the answer. What it cannot prove is the client secret: only a sign-in does (the provider checks it).
 * Metadata that passes replaces what this replica had cached.
 */
export async function testOidcConfiguration(
  ctx: AppContext,
  realm: OidcRealm,
  metadataSource: OidcMetadataSource,
): Promise<OidcTestResult> {
  const settings = await readSettings(ctx.db);
  const r = oidcRealmSettings(settings, realm);
  const problems: string[] = [];
  const warnings: string[] = [];
  const result = (issuer: string | null, endSession = false): OidcTestResult => ({
    Realm: realm,
    Ok: problems.length === 0,
    Problems: problems,
    Warnings: warnings,
    Issuer: issuer,
    EndSession: endSession,
  });

  if (r.issuer === '') {
    problems.push('no issuer URL is set');
    return result(null);
  }
  if (r.clientId === '') problems.push('no client ID is set');
  if (r.sealedSecret === '') problems.push('no client secret is set');
  else {
    try {
      openClientSecret(ctx, r);
    } catch (error) {
      if (!(error instanceof SecretUnreadableError)) throw error;
      problems.push(`the stored client secret cannot be opened (${error.reason}): enter it again`);
    }
  }
  if (r.publicUrl === '') problems.push('PublicURL is not set, so there is no redirect URI to register');
  if (allowsPlainHttp(r.issuer)) warnings.push('the issuer is plain http on a loopback address: for development only');

  const raw = await readDocument(discoveryUrl(r.issuer), problems);
  if (raw === null) return result(null);
  const document = raw as Record<string, unknown>;
  const issuer = typeof document.issuer === 'string' ? document.issuer : null;
  if (issuer === null) problems.push('the metadata names no issuer');
  else if (issuer !== r.issuer) {
    problems.push(
      `issuer mismatch: the metadata names ${JSON.stringify(issuer)}, the setting is ${JSON.stringify(r.issuer)}`,
    );
  }
  problems.push(...metadataProblems(document as ServerMetadata));
  if (!Array.isArray(document.code_challenge_methods_supported)) {
    warnings.push('the metadata does not list code_challenge_methods_supported; Postern sends PKCE (S256) anyway');
  }
  if (typeof document.userinfo_endpoint !== 'string') {
    warnings.push('no userinfo_endpoint: the user name and groups must be claims of the ID token');
  }
  const scopes = Array.isArray(document.scopes_supported) ? (document.scopes_supported as unknown[]) : null;
  const unknownScopes = scopes === null ? [] : r.scopes.filter((scope) => !scopes.includes(scope));
  if (unknownScopes.length > 0) warnings.push(`the provider does not list the scopes ${unknownScopes.join(', ')}`);
  const endSession = typeof document.end_session_endpoint === 'string';
  if (!endSession) warnings.push('no end_session_endpoint: signing out of Postern does not sign out at the provider');

  if (typeof document.jwks_uri === 'string') {
    const keys = await readDocument(document.jwks_uri, problems, 'the key set (jwks_uri)');
    if (keys !== null) {
      const list = (keys as { keys?: unknown }).keys;
      if (!Array.isArray(list) || list.length === 0) problems.push('the key set (jwks_uri) holds no keys');
    }
  }
  if (problems.length === 0) {
    // The same checks the sign-in makes (openid-client's among them), so that "Ok" means it can start.
    try {
      metadataSource.remember(r.issuer, await discoverProvider(r));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return result(issuer, endSession);
}

/** Where OpenID Connect Discovery puts an issuer's metadata. */
function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

/**
 * A JSON object from `url` with the sign-in's fetch rules, or null with the problem added. Plain http
 * is refused except to a loopback issuer, as for the sign-in.
 */
async function readDocument(url: string, problems: string[], what = 'the metadata'): Promise<object | null> {
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    problems.push(`${what} URL ${JSON.stringify(url)} is not a URL`);
    return null;
  }
  if (parsedUrl.protocol !== 'https:' && !allowsPlainHttp(url)) {
    problems.push(`${what} URL ${url} is not https`);
    return null;
  }
  let response: Response;
  try {
    response = await providerFetch(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      body: undefined,
      redirect: 'manual',
    });
  } catch (error) {
    problems.push(
      `${what} is unreachable: ${error instanceof ProviderUnreachableError ? error.message : String(error)}`,
    );
    return null;
  }
  if (response.status !== 200) {
    problems.push(`${what} at ${url} answered HTTP ${response.status}`);
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(await response.text());
  } catch {
    problems.push(`${what} at ${url} is not JSON`);
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    problems.push(`${what} at ${url} is not a JSON object`);
    return null;
  }
  return parsed;
}
