import { HttpStatusError } from '../../http/http-status-error.js';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { OAuthClientCredentials } from '../../http/auth/oauth-client-credentials.js';
import { HttpClient, pathSegment, type HttpRequest, type HttpResponse } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry.js';
import { classifyVendorAnswer, type VendorIntent, type VendorOutcome } from '../../kit/vendor-outcome.js';
import {
  AZURE_RULES,
  AzureNsg,
  AzureOperationStatus,
  AzureSecurityRule,
  AzureSecurityRuleList,
  AzureSubscriptionsAnswer,
  AzureTokenAnswer,
  azureErrorCode,
  describeAzureAnswer,
} from './azure-responses.js';

/** The ARM API versions of VENDORS.md 1.8. */
export const SUBSCRIPTIONS_API_VERSION = '2022-12-01';
export const NETWORK_API_VERSION = '2024-05-01';

export interface AzureClientOptions {
  /** The Microsoft Entra authority, e.g. `https://login.microsoftonline.com` (China: `https://login.chinacloudapi.cn`). */
  authorityHost: string;
  /** Azure Resource Manager, e.g. `https://management.azure.com` (its `/.default` is the token scope). */
  managementEndpoint: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  noCache: boolean;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Wait between polls of a long-running operation when ARM sends no Retry-After (default 2 s). */
  pollIntervalMs?: number;
  /** A long-running operation still running after this long is reported as failed (default 5 min). */
  pollTimeoutMs?: number;
}

/** What one change did: its outcome, and for anything but done a message fit for the grant's Error. */
export interface ChangeResult {
  outcome: VendorOutcome;
  error: string;
  /** ARM's error code when the change was refused (the answer's, or the failed operation's). */
  code?: string;
}

/** Where an NSG lives: `/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/networkSecurityGroups/{nsg}`. */
export type NsgPath = string;

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The Azure calls the driver needs (VENDORS.md 1.8), a thin REST client on the driver kit rather than
 * @azure/identity 4.13.1 + @azure/arm-network 36.0.0 for two calls and a poll. Measured on Node 20:
 * the SDKs install as 125 MB of node_modules and bundle (esbuild, minified) to 1.63 MB, three times
 * the rest of the agent, adding about 90 ms to start; this client adds 16 KB and about 13 ms. Newer
 * SDK releases need Node 22, and identity refuses an http authority (no plain loopback fakes). Sign-in is the client-credentials grant at the authority's token endpoint; ARM calls carry
 * the bearer token; PUT and DELETE of a security rule are long-running operations followed through
 * `Azure-AsyncOperation` (or `Location`) to the end. PUT, DELETE and GET are idempotent, so 429 (with
 * Retry-After) and 5xx are retried by the kit. An operation URL on another host is never followed:
 * the token only goes to the configured management endpoint.
 */
export class AzureClient {
  readonly http: HttpClient;
  readonly #login: HttpClient;
  readonly #auth: OAuthClientCredentials;
  readonly #options: AzureClientOptions;
  readonly #origin: string;

  constructor(options: AzureClientOptions) {
    this.#options = options;
    const common = {
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    };
    this.#login = new HttpClient({
      name: 'azure login',
      baseUrl: options.authorityHost,
      secrets: [options.clientSecret],
      ...common,
    });
    const scope = `${options.managementEndpoint.replace(/\/+$/, '')}/.default`;
    this.#auth = new OAuthClientCredentials({
      fetchToken: () => this.#fetchToken(scope),
      secrets: [options.clientSecret],
      noCache: options.noCache,
    });
    this.http = new HttpClient({ name: 'azure', baseUrl: options.managementEndpoint, auth: this.#auth, ...common });
    this.#origin = this.http.origin;
  }

  /** Tokens fetched from the authority so far. */
  get tokenFetches(): number {
    return this.#auth.fetches;
  }

  /** The subscription ids the credentials can see (every page). */
  async subscriptions(): Promise<string[]> {
    const ids: string[] = [];
    let request: HttpRequest | null = {
      method: 'GET',
      path: '/subscriptions',
      query: { 'api-version': SUBSCRIPTIONS_API_VERSION },
    };
    while (request !== null) {
      const page: z.output<typeof AzureSubscriptionsAnswer> = await this.#read(
        request,
        AzureSubscriptionsAnswer,
        'could not list the subscriptions',
      );
      ids.push(...page.value.map((subscription) => subscription.subscriptionId));
      request = page.nextLink ? this.#followLink(page.nextLink) : null;
    }
    return ids;
  }

  /** True when the subscription holds the NSG; throws when ARM cannot be read. */
  async nsgExists(nsg: NsgPath): Promise<boolean> {
    const request: HttpRequest = { method: 'GET', path: nsg, query: { 'api-version': NETWORK_API_VERSION } };
    const response = await this.http.request(request);
    if (response.status === 404) return false;
    this.#check(request, response, AzureNsg, 'could not read the network security group');
    return true;
  }

  /** Every security rule of the NSG (its own, not the default rules). */
  async rules(nsg: NsgPath): Promise<AzureSecurityRule[]> {
    const rules: AzureSecurityRule[] = [];
    let request: HttpRequest | null = this.#rulesRequest(nsg);
    while (request !== null) {
      const response = await this.http.request(request);
      // The NSG (or its resource group) is gone or was moved: the driver looks for it again next time.
      if (response.status === 404)
        throw new NsgNotFoundError(this.#failure('could not list the security rules', response));
      const page: z.output<typeof AzureSecurityRuleList> = this.#check(
        request,
        response,
        AzureSecurityRuleList,
        'could not list the security rules',
      );
      rules.push(...page.value);
      request = page.nextLink ? this.#followLink(page.nextLink) : null;
    }
    return rules;
  }

  /** One rule, or null when it does not exist. */
  async rule(nsg: NsgPath, name: string): Promise<AzureSecurityRule | null> {
    const request = this.#ruleRequest('GET', nsg, name);
    const response = await this.http.request(request);
    if (response.status === 404) return null;
    return this.#check(request, response, AzureSecurityRule, `could not read back rule ${name}`);
  }

  /** Creates or replaces a rule and follows the operation to its end. */
  async putRule(nsg: NsgPath, name: string, properties: Record<string, unknown>): Promise<ChangeResult> {
    return this.#change('add', `create security rule ${name}`, {
      ...this.#ruleRequest('PUT', nsg, name),
      body: { properties },
    });
  }

  /** Deletes a rule (absent is fine) and follows the operation to its end. */
  async deleteRule(nsg: NsgPath, name: string): Promise<ChangeResult> {
    return this.#change('remove', `delete security rule ${name}`, this.#ruleRequest('DELETE', nsg, name));
  }

  close(): void {
    this.http.close();
    this.#login.close();
  }

  async #fetchToken(scope: string): Promise<{ token: string; expiresInMs: number }> {
    const request: HttpRequest = {
      method: 'POST',
      path: `/${pathSegment(this.#options.tenantId)}/oauth2/v2.0/token`,
      form: {
        grant_type: 'client_credentials',
        client_id: this.#options.clientId,
        client_secret: this.#options.clientSecret,
        scope,
      },
      // Asking for a token twice does no harm.
      idempotent: true,
    };
    const response = await this.#login.request(request);
    const parsed = this.#login.parse(request, response, AzureTokenAnswer);
    if (!parsed.ok) {
      const reason = tokenError(response.body);
      throw new HttpStatusError(
        `azure: the authority refused the client credentials (HTTP ${response.status}${reason === '' ? '' : `: ${this.#login.redact(reason)}`}); check the backend's TenantId, ClientId and ClientSecret`,
        response.status,
      );
    }
    return { token: parsed.data.access_token, expiresInMs: parsed.data.expires_in * 1000 };
  }

  async #change(intent: VendorIntent, what: string, request: HttpRequest): Promise<ChangeResult> {
    const response = await this.http.request(request);
    const outcome = classifyVendorAnswer(intent, response, AZURE_RULES);
    if (outcome === 'alreadyAbsent') return { outcome, error: '' };
    if (outcome !== 'applied') {
      const code = azureErrorCode(response.body);
      return { outcome, error: this.#failure(`could not ${what}`, response), ...(code === null ? {} : { code }) };
    }
    try {
      const failure = await this.#followOperation(request, response);
      if (failure === null) return { outcome, error: '' };
      return {
        outcome: 'fatal',
        error: `azure: could not ${what}: ${failure.message}`,
        ...(failure.code === null ? {} : { code: failure.code }),
      };
    } catch (error) {
      return {
        outcome: 'fatal',
        error: `azure: could not ${what}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }

  /**
   * Follows a long-running operation (ARM's async pattern): `Azure-AsyncOperation` is polled until
   * its status is Succeeded, Failed or Canceled; otherwise `Location` (on a 201 or 202) until it stops answering 202;
   * otherwise a PUT's resource until its provisioningState is terminal. Null when it succeeded; else
   * why not, with ARM's error code when it gave one.
   */
  async #followOperation(
    request: HttpRequest,
    first: HttpResponse,
  ): Promise<{ message: string; code: string | null } | null> {
    const asyncOperation = header(first, 'azure-asyncoperation');
    const location = header(first, 'location');
    const deadline = Date.now() + (this.#options.pollTimeoutMs ?? 300_000);
    let last = first;
    const wait = async () => {
      if (Date.now() > deadline) throw new Error('the operation did not finish in time');
      await sleep(pollDelay(last, this.#options.pollIntervalMs ?? 2_000));
    };
    if (asyncOperation !== null) {
      const poll = this.#followLink(asyncOperation);
      for (;;) {
        const status = await this.#read(poll, AzureOperationStatus, 'could not read the operation status');
        const state = status.status.toLowerCase();
        if (state === 'succeeded') return null;
        if (TERMINAL.has(state)) {
          const detail = status.error?.code ?? '';
          return {
            message: `the operation ended ${status.status}${detail === '' ? '' : ` (${detail}${status.error?.message ? `: ${status.error.message}` : ''})`}`,
            code: detail === '' ? null : detail,
          };
        }
        await wait();
      }
    }
    if ((first.status === 201 || first.status === 202) && location !== null) {
      const poll = this.#followLink(location);
      for (;;) {
        await wait();
        last = await this.http.request(poll);
        if (last.status === 202) continue;
        if (last.status >= 200 && last.status <= 299) return null;
        if (last.status === 404 && request.method === 'DELETE') return null;
        return { message: describeAzureAnswer(last), code: azureErrorCode(last.body) };
      }
    }
    if (request.method !== 'PUT') return null;
    // A PUT answered without an operation header: its resource's provisioningState tells.
    let state = ruleState(first.body);
    while (!TERMINAL.has(state)) {
      await wait();
      last = await this.http.request({ ...request, method: 'GET' });
      if (last.status !== 200) return { message: describeAzureAnswer(last), code: azureErrorCode(last.body) };
      state = ruleState(last.body);
    }
    return state === 'succeeded' ? null : { message: `the rule's provisioningState is ${state}`, code: null };
  }

  /** A URL ARM handed back (nextLink, an operation) as a call to the same endpoint; another host is refused. */
  #followLink(link: string): HttpRequest {
    let url: URL;
    try {
      url = new URL(link, this.#origin);
    } catch {
      throw new Error(`azure: ARM answered an unusable link`);
    }
    if (url.origin !== this.#origin) {
      throw new Error(
        `azure: refused to follow a link to another host, ${url.origin}: the token only goes to the management endpoint ${this.#origin}`,
      );
    }
    return { method: 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams) };
  }

  async #read<S extends z.ZodType>(request: HttpRequest, schema: S, what: string): Promise<z.output<S>> {
    return this.#check(request, await this.http.request(request), schema, what);
  }

  #check<S extends z.ZodType>(request: HttpRequest, response: HttpResponse, schema: S, what: string): z.output<S> {
    const parsed = this.http.parse(request, response, schema);
    if (!parsed.ok) {
      throw new Error(
        response.status >= 200 && response.status <= 299
          ? `azure: ${what}: ${parsed.error}`
          : this.#failure(what, response),
      );
    }
    return parsed.data;
  }

  /** A failed call's message: what failed, how ARM answered, and what 401/403 mean. */
  #failure(what: string, response: HttpResponse): string {
    const answer = this.http.redact(describeAzureAnswer(response));
    if (response.status === 401)
      return `azure: ${what}: ARM refused the token (${answer}); check the backend's credentials and the agent's azure.authorityHost`;
    if (response.status === 403)
      return `azure: ${what}: the service principal may not do this (${answer}); it needs Network Contributor on the NSG`;
    return `azure: ${what}: ${answer}`;
  }

  #rulesRequest(nsg: NsgPath): HttpRequest {
    return { method: 'GET', path: `${nsg}/securityRules`, query: { 'api-version': NETWORK_API_VERSION } };
  }

  #ruleRequest(method: HttpRequest['method'], nsg: NsgPath, name: string): HttpRequest {
    return {
      method,
      path: `${nsg}/securityRules/${pathSegment(name)}`,
      query: { 'api-version': NETWORK_API_VERSION },
    };
  }
}

/** The NSG a call named does not exist (any more) where it was found. */
export class NsgNotFoundError extends Error {
  override name = 'NsgNotFoundError';
}

/** The NSG's resource path in one subscription. */
export function nsgPath(subscription: string, resourceGroup: string, nsg: string): NsgPath {
  return `/subscriptions/${pathSegment(subscription)}/resourceGroups/${pathSegment(resourceGroup)}/providers/Microsoft.Network/networkSecurityGroups/${pathSegment(nsg)}`;
}

function header(response: HttpResponse, name: string): string | null {
  const value = response.headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
}

/** ARM's Retry-After on a poll answer (seconds), else the configured interval. */
function pollDelay(response: HttpResponse, fallbackMs: number): number {
  const value = header(response, 'retry-after');
  const seconds = value === null ? Number.NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, 60_000) : fallbackMs;
}

function ruleState(body: unknown): string {
  const parsed = AzureSecurityRule.safeParse(body);
  return (parsed.success ? (parsed.data.properties.provisioningState ?? 'Succeeded') : 'Succeeded').toLowerCase();
}

/** The authority's error (`error`, `error_description` with its AADSTS code), one line. */
function tokenError(body: unknown): string {
  if (body === null || typeof body !== 'object') return '';
  const { error, error_description: description } = body as Record<string, unknown>;
  const first = typeof description === 'string' ? (description.split(/\r?\n/)[0] ?? '') : '';
  return [typeof error === 'string' ? error : '', first].filter((part) => part !== '').join(': ');
}
