/**
 * FAKE Azure (Microsoft Entra token endpoint + Azure Resource Manager for network security groups):
 * a contract fake for the agent's Azure NSG driver tests, NOT Azure. Written from the documented
 * behaviour in ../shared/VENDORS.md section 1.8 and the published ARM examples
 * (`Microsoft.Network/stable/2024-05-01/nsg.json`, `NetworkSecurityGroupRuleCreate.json`, the ARM
 * async-operation pattern), never from captured traffic. What it models:
 *
 * - `POST /{tenant}/oauth2/v2.0/token`, form-encoded client credentials with a `…/.default` scope:
 *   `{token_type, expires_in, access_token}`; a wrong secret answers 401 `invalid_client` (AADSTS7000215),
 *   an unknown tenant 400 (AADSTS90002).
 * - Every ARM call needs `Authorization: Bearer <token>` and `api-version`; an expired token answers
 *   401 `ExpiredAuthenticationToken`, a missing or unknown one 401 `AuthenticationFailed`.
 * - `GET /subscriptions`; `GET …/networkSecurityGroups/{nsg}` (404 `ResourceNotFound` when absent).
 * - `GET …/securityRules` and `…/securityRules/{name}` (404 `NotFound` when absent).
 * - `PUT …/securityRules/{name}`: 201 (new) or 200 (replaced), body with provisioningState
 *   `Updating` and an `Azure-AsyncOperation` header; the status resource answers `InProgress`
 *   (`asyncPolls` times) then `Succeeded`, and only then is the rule `Succeeded`. Priorities 100–4096,
 *   unique per direction: a PUT at a priority another rule of its direction holds answers 400
 *   `SecurityRuleConflict` "Security rule <other> conflicts with rule <name>. Rules cannot have the
 *   same Priority and Direction." (as ARM answers in public reports: egen/bucc#183,
 *   hashicorp/terraform-provider-azurerm#11137, Azure/aks-engine#2106).
 * - `DELETE …/securityRules/{name}`: 202 with `Azure-AsyncOperation` and `Location` (the Location
 *   answers 202 until done, then 204); 204 when the rule does not exist.
 * - A write while another operation on the same NSG is still running answers 429
 *   `RetryableErrorDueToAnotherOperation` with Retry-After (Azure's "another operation … is ongoing").
 *
 * Choices of this fake that the documentation does not fix: the error codes for an unusable prefix
 * (`SecurityRuleInvalidAddressPrefix`) and the rule limit (`SecurityRulesPerNetworkSecurityGroupLimitReached`,
 * default 1,000 rules). Test switches: answer 429 (with Retry-After) for the next N calls, redirect
 * every call to another host, refuse one prefix, expire every token, a token lifetime, operations
 * polled via Location only, a rule written by someone else (`putForeignRule`, as the portal or
 * Terraform would) and a hook run when a rule's PUT arrives, before it is checked (`onRulePut`: to
 * take its priority between the driver's listing and its write).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

export interface AzureFakeRule {
  name: string;
  properties: Record<string, unknown> & {
    priority: number;
    direction: string;
    provisioningState: string;
  };
}

interface FakeNsg {
  subscription: string;
  resourceGroup: string;
  name: string;
  rules: Map<string, AzureFakeRule>;
  /** The operation running on the NSG now, if any. */
  busy: string | null;
}

interface Operation {
  nsg: FakeNsg;
  pollsLeft: number;
  finish: () => void;
  done: boolean;
  kind: 'put' | 'delete';
}

/** A rule's PUT as it arrives at the fake (for `onRulePut`). */
export interface AzureFakeRulePut {
  subscription: string;
  resourceGroup: string;
  nsg: string;
  rule: string;
  /** The priority asked for (whatever the body says). */
  priority: unknown;
  direction: unknown;
}

/** One request the fake received. */
export interface AzureFakeRequest {
  method: string;
  path: string;
  authorized: boolean;
}

export interface AzureFakeOptions {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Subscriptions the service principal sees (each may hold NSGs; see addNsg). */
  subscriptions: readonly string[];
  /** Seconds a token lasts (default 3599, as Entra says). */
  tokenLifetimeSeconds?: number;
  /** `InProgress` answers before an operation succeeds (default 1). */
  asyncPolls?: number;
  /** Security rules an NSG may hold (default 1,000). */
  maxRules?: number;
}

const API_VERSIONS = new Set(['2022-12-01', '2024-05-01']);
const NSG_PATH =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/networkSecurityGroups\/([^/]+)(?:\/securityRules(?:\/([^/]+))?)?$/i;
const OPERATION_PATH =
  /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.Network\/locations\/westeurope\/(operations|operationResults)\/([^/]+)$/i;
const RULE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,78}[A-Za-z0-9_])?$/;

export class AzureNsgFake {
  readonly requests: AzureFakeRequest[] = [];
  readonly options: Required<AzureFakeOptions>;
  /** Tokens issued so far. */
  tokensIssued = 0;
  /** Writes refused because another operation on the NSG was still running. */
  concurrentWrites = 0;
  /** Operations polled via `Location` only (no `Azure-AsyncOperation` header). */
  locationOnly = false;
  /** Runs when a rule's PUT arrives, before it is checked: a test's other writer acts here. */
  onRulePut: ((put: AzureFakeRulePut) => void) | null = null;
  #server: LoopbackServer | null = null;
  readonly #tokens = new Map<string, number>();
  readonly #nsgs = new Map<string, FakeNsg>();
  readonly #operations = new Map<string, Operation>();
  readonly #refused = new Set<string>();
  #throttle: { remaining: number; retryAfter: string } | null = null;
  #redirect: string | null = null;

  private constructor(options: AzureFakeOptions) {
    this.options = { tokenLifetimeSeconds: 3599, asyncPolls: 1, maxRules: 1000, ...options };
  }

  static async start(options: AzureFakeOptions): Promise<AzureNsgFake> {
    const fake = new AzureNsgFake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body));
    return fake;
  }

  /** `http://127.0.0.1:<port>`: both the authority and the management endpoint. */
  get url(): string {
    if (this.#server === null) throw new Error('the Azure fake is not running');
    return this.#server.url;
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#server = null;
  }

  /** Creates an NSG holding these (admin's) rules. */
  addNsg(subscription: string, resourceGroup: string, name: string, rules: readonly AzureFakeRule[] = []): void {
    this.#nsgs.set(key(subscription, resourceGroup, name), {
      subscription,
      resourceGroup,
      name,
      rules: new Map(rules.map((rule) => [rule.name, structuredClone(rule)])),
      busy: null,
    });
  }

  /**
   * Someone else's rule written at once (the portal, Terraform, another backend), replacing one of
   * that name; false when the NSG does not exist. It is not checked against the other rules: the
   * test chooses what to write.
   */
  putForeignRule(subscription: string, resourceGroup: string, name: string, rule: AzureFakeRule): boolean {
    const nsg = this.#nsgs.get(key(subscription, resourceGroup, name));
    if (nsg === undefined) return false;
    nsg.rules.set(rule.name, structuredClone(rule));
    return true;
  }

  /** Deletes an NSG (an admin removing or moving it). */
  removeNsg(subscription: string, resourceGroup: string, name: string): void {
    this.#nsgs.delete(key(subscription, resourceGroup, name));
  }

  /** An NSG's rules (copies), or null when it does not exist. */
  rules(subscription: string, resourceGroup: string, name: string): AzureFakeRule[] | null {
    const nsg = this.#nsgs.get(key(subscription, resourceGroup, name));
    return nsg === undefined ? null : [...nsg.rules.values()].map((rule) => structuredClone(rule));
  }

  /** Every token issued so far stops working (as when they expire); new ones work. */
  expireTokens(): void {
    for (const token of this.#tokens.keys()) this.#tokens.set(token, 0);
  }

  /** The next `count` ARM calls answer 429 with this Retry-After. */
  throttle(count: number, retryAfter = '0'): void {
    this.#throttle = count > 0 ? { remaining: count, retryAfter } : null;
  }

  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  /** From now on a rule for this address prefix (`192.0.2.66` or `192.0.2.66/32`) is refused. */
  refusePrefix(prefix: string): void {
    this.#refused.add(prefix);
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
    const expiry = this.#tokens.get(token);
    const authorized = expiry !== undefined && expiry > Date.now();
    this.requests.push({ method, path: url.pathname, authorized });

    if (this.#redirect !== null) {
      res.writeHead(302, { location: `${this.#redirect}${req.url ?? '/'}` });
      res.end();
      return;
    }
    const tokenPath = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (tokenPath !== null && method === 'POST') {
      this.#token(res, decodeURIComponent(tokenPath[1] ?? ''), new URLSearchParams(body));
      return;
    }
    const armError = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      sendJson(res, status, { error: { code, message } }, headers);
    if (!authorized) {
      if (expiry !== undefined)
        armError(
          401,
          'ExpiredAuthenticationToken',
          'The access token expiry UTC time is earlier than current UTC time.',
        );
      else
        armError(401, 'AuthenticationFailed', 'Authentication failed. The Authorization header is missing or invalid.');
      return;
    }
    if (this.#throttle !== null) {
      const { retryAfter } = this.#throttle;
      if (--this.#throttle.remaining <= 0) this.#throttle = null;
      armError(429, 'TooManyRequests', 'The request is being throttled.', { 'retry-after': retryAfter });
      return;
    }
    if (!API_VERSIONS.has(url.searchParams.get('api-version') ?? '')) {
      armError(400, 'MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required.');
      return;
    }
    if (url.pathname === '/subscriptions' && method === 'GET') {
      sendJson(res, 200, {
        value: this.options.subscriptions.map((id) => ({
          id: `/subscriptions/${id}`,
          subscriptionId: id,
          displayName: `Subscription ${id.slice(0, 8)}`,
          state: 'Enabled',
        })),
      });
      return;
    }
    const operation = OPERATION_PATH.exec(url.pathname);
    if (operation !== null && method === 'GET') {
      this.#poll(res, operation[2] === 'operations' ? 'status' : 'location', operation[3] ?? '');
      return;
    }
    const match = NSG_PATH.exec(url.pathname);
    if (match === null) {
      armError(404, 'InvalidResourceType', 'The resource type could not be found.');
      return;
    }
    const [, subscription = '', resourceGroup = '', nsgName = '', ruleSegment] = match.map((part) =>
      part === undefined ? undefined : decodeURIComponent(part),
    );
    const nsg = this.#nsgs.get(key(subscription, resourceGroup, nsgName));
    if (nsg === undefined || !this.options.subscriptions.includes(subscription)) {
      armError(
        404,
        'ResourceNotFound',
        `The Resource 'Microsoft.Network/networkSecurityGroups/${nsgName}' under resource group '${resourceGroup}' was not found.`,
      );
      return;
    }
    const base = `/subscriptions/${subscription}/resourceGroups/${nsg.resourceGroup}/providers/Microsoft.Network/networkSecurityGroups/${nsg.name}`;
    const isRuleList = url.pathname.toLowerCase().endsWith('/securityrules');
    if (ruleSegment === undefined && !isRuleList) {
      if (method !== 'GET') return armError(405, 'MethodNotAllowed', 'Only GET here.');
      sendJson(res, 200, { id: base, name: nsg.name, type: 'Microsoft.Network/networkSecurityGroups' });
      return;
    }
    if (ruleSegment === undefined) {
      if (method !== 'GET') return armError(405, 'MethodNotAllowed', 'Only GET here.');
      sendJson(res, 200, { value: [...nsg.rules.values()].map((rule) => this.#ruleBody(base, rule)) });
      return;
    }
    const rule = nsg.rules.get(ruleSegment);
    if (method === 'GET') {
      if (rule === undefined) armError(404, 'NotFound', `Resource ${ruleSegment} not found.`);
      else sendJson(res, 200, this.#ruleBody(base, rule));
      return;
    }
    if (method !== 'PUT' && method !== 'DELETE') {
      armError(405, 'MethodNotAllowed', 'The method is not allowed.');
      return;
    }
    if (nsg.busy !== null) {
      this.concurrentWrites++;
      armError(
        429,
        'RetryableErrorDueToAnotherOperation',
        `Operation on Network Security Group ${nsg.name} is not allowed because another operation (${nsg.busy}) is in progress.`,
        { 'retry-after': '0' },
      );
      return;
    }
    if (method === 'DELETE') {
      if (rule === undefined) {
        res.writeHead(204).end();
        return;
      }
      rule.properties.provisioningState = 'Deleting';
      this.#startOperation(res, nsg, 'delete', 202, null, () => nsg.rules.delete(ruleSegment));
      return;
    }
    this.#put(res, nsg, base, ruleSegment, rule, body);
  }

  #put(
    res: ServerResponse,
    nsg: FakeNsg,
    base: string,
    name: string,
    existing: AzureFakeRule | undefined,
    body: string,
  ): void {
    const invalid = (code: string, message: string) => sendJson(res, 400, { error: { code, message } });
    let properties: Record<string, unknown>;
    try {
      properties = (JSON.parse(body) as { properties?: Record<string, unknown> }).properties ?? {};
    } catch {
      invalid('InvalidRequestFormat', 'Cannot parse the request.');
      return;
    }
    const priority = properties.priority;
    const direction = properties.direction;
    this.onRulePut?.({
      subscription: nsg.subscription,
      resourceGroup: nsg.resourceGroup,
      nsg: nsg.name,
      rule: name,
      priority,
      direction,
    });
    if (!RULE_NAME.test(name)) return invalid('InvalidResourceName', `Resource name ${name} is invalid.`);
    if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 100 || priority > 4096)
      return invalid(
        'SecurityRuleInvalidPriority',
        `Security rule ${name} has invalid priority. Value provided: ${String(priority)}.`,
      );
    if (direction !== 'Inbound' && direction !== 'Outbound')
      return invalid('SecurityRuleInvalidDirection', `Security rule ${name} has an invalid direction.`);
    for (const field of ['sourceAddressPrefix', 'destinationAddressPrefix'] as const) {
      const value = properties[field];
      if (typeof value !== 'string' || this.#refused.has(value) || this.#refused.has(value.replace(/\/(32|128)$/, '')))
        return invalid(
          'SecurityRuleInvalidAddressPrefix',
          `Security rule ${name} has invalid Address prefix. Value provided: ${String(value)}.`,
        );
    }
    const clash = [...nsg.rules.values()].find(
      (other) =>
        other.name !== name && other.properties.direction === direction && other.properties.priority === priority,
    );
    if (clash !== undefined)
      return invalid(
        'SecurityRuleConflict',
        `Security rule ${clash.name} conflicts with rule ${name}. Rules cannot have the same Priority and Direction. To learn more, see aka.ms/nsgrules.`,
      );
    if (existing === undefined && nsg.rules.size >= this.options.maxRules)
      return invalid(
        'SecurityRulesPerNetworkSecurityGroupLimitReached',
        `The network security group ${nsg.name} has reached the limit of ${this.options.maxRules} security rules.`,
      );
    const rule: AzureFakeRule = {
      name,
      properties: { ...properties, priority, direction, provisioningState: 'Updating' },
    };
    nsg.rules.set(name, rule);
    this.#startOperation(res, nsg, 'put', existing === undefined ? 201 : 200, this.#ruleBody(base, rule), () => {
      rule.properties.provisioningState = 'Succeeded';
    });
  }

  #startOperation(
    res: ServerResponse,
    nsg: FakeNsg,
    kind: 'put' | 'delete',
    status: number,
    body: unknown,
    finish: () => void,
  ): void {
    const id = randomUUID();
    const operation: Operation = { nsg, pollsLeft: this.options.asyncPolls, finish, done: false, kind };
    this.#operations.set(id, operation);
    nsg.busy = id;
    if (operation.pollsLeft <= 0) this.#complete(operation);
    const root = `${this.url}/subscriptions/${nsg.subscription}/providers/Microsoft.Network/locations/westeurope`;
    const headers: Record<string, string> = { 'retry-after': '0' };
    if (!this.locationOnly) headers['azure-asyncoperation'] = `${root}/operations/${id}?api-version=2024-05-01`;
    if (kind === 'delete' || this.locationOnly)
      headers.location = `${root}/operationResults/${id}?api-version=2024-05-01`;
    if (body === null) {
      res.writeHead(status, headers).end();
    } else {
      sendJson(res, status, body, headers);
    }
  }

  #poll(res: ServerResponse, via: 'status' | 'location', id: string): void {
    const operation = this.#operations.get(id);
    if (operation === undefined) {
      sendJson(res, 404, { error: { code: 'NotFound', message: `Operation ${id} not found.` } });
      return;
    }
    if (!operation.done && --operation.pollsLeft <= 0) {
      // The answer to this poll is still InProgress; the next one sees the end.
      this.#complete(operation);
      this.#answerPoll(res, via, false);
      return;
    }
    this.#answerPoll(res, via, operation.done);
  }

  #answerPoll(res: ServerResponse, via: 'status' | 'location', done: boolean): void {
    if (via === 'status') sendJson(res, 200, { status: done ? 'Succeeded' : 'InProgress' }, { 'retry-after': '0' });
    else if (done) res.writeHead(204).end();
    else res.writeHead(202, { 'retry-after': '0' }).end();
  }

  #complete(operation: Operation): void {
    operation.done = true;
    operation.finish();
    if (operation.nsg.busy !== null && this.#operations.get(operation.nsg.busy) === operation)
      operation.nsg.busy = null;
  }

  #token(res: ServerResponse, tenant: string, form: URLSearchParams): void {
    if (tenant !== this.options.tenantId) {
      sendJson(res, 400, {
        error: 'invalid_request',
        error_description: `AADSTS90002: Tenant '${tenant}' not found.`,
      });
      return;
    }
    const scope = form.get('scope') ?? '';
    if (form.get('grant_type') !== 'client_credentials' || !scope.endsWith('/.default')) {
      sendJson(res, 400, {
        error: 'invalid_request',
        error_description: 'AADSTS900144: The request body must contain the grant_type and a /.default scope.',
      });
      return;
    }
    if (form.get('client_id') !== this.options.clientId || form.get('client_secret') !== this.options.clientSecret) {
      sendJson(res, 401, {
        error: 'invalid_client',
        error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${form.get('client_id') ?? ''}'.`,
      });
      return;
    }
    const token = `eyJ0eXAiOiJKV1Qi.${randomBytes(24).toString('base64url')}`;
    const lifetime = this.options.tokenLifetimeSeconds;
    this.#tokens.set(token, Date.now() + lifetime * 1000);
    this.tokensIssued++;
    sendJson(res, 200, { token_type: 'Bearer', expires_in: lifetime, ext_expires_in: lifetime, access_token: token });
  }

  #ruleBody(base: string, rule: AzureFakeRule): unknown {
    return {
      name: rule.name,
      id: `${base}/securityRules/${rule.name}`,
      etag: `W/"${randomUUID()}"`,
      type: 'Microsoft.Network/networkSecurityGroups/securityRules',
      properties: structuredClone(rule.properties),
    };
  }
}

function key(subscription: string, resourceGroup: string, nsg: string): string {
  return `${subscription}/${resourceGroup}/${nsg}`.toLowerCase();
}
