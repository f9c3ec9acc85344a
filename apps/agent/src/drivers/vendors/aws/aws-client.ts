import type { Logger } from 'pino';
import { HttpClient } from '../../http/http-client.js';
import type { RetryPolicy } from '../../http/retry.js';
import { find } from '../panos/panos-xml.js';
import type { XmlElement } from '../panos/panos-xml.js';
import type { CredentialChain } from './aws-credentials.js';
import {
  AUTH_CODES,
  ec2Error,
  ec2Rules,
  readEc2Xml,
  THROTTLING_CODES,
  type Ec2Error,
  type Ec2Rule,
} from './aws-responses.js';
import { signV4, type AwsCredentials } from './aws-sigv4.js';

const API_VERSION = '2016-11-15';

export interface AwsClientOptions {
  region: string;
  /** The EC2 endpoint (agent setting aws.endpoint); '' for https://ec2.<region>.amazonaws.com. */
  endpoint: string;
  /** The backend's keys, or null for the standard credential chain. */
  credentials: AwsCredentials | null;
  chain: CredentialChain;
  logger: Logger;
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
}

/** One ingress permission: tcp on one port from one CIDR, with its description. */
export interface Ec2Permission {
  cidr: string;
  family: 'inet' | 'inet6';
  description: string;
}

/** What an EC2 call answered: its root element, or the error it named. */
export type Ec2Answer = { ok: true; root: XmlElement } | { ok: false; status: number; error: Ec2Error };

/**
 * The four EC2 Query API calls the driver needs (VENDORS.md 1.7), signed with SigV4, sent as
 * `POST /` form-encoded (`Action=…&Version=2016-11-15&…`), answered in XML. The list and filter
 * parameters are spelled as the SDK's EC2 serialiser spells them (`IpPermissions.1.IpRanges.1.CidrIp`,
 * `SecurityGroupRuleId.1`, `Filter.1.Value.1`), which the contract fake's SDK test pins.
 *
 * Every call is safe to repeat (a repeated authorise is InvalidPermission.Duplicate, a repeated
 * revoke InvalidPermission.NotFound, both success), so all are retried under throttling
 * (RequestLimitExceeded comes as HTTP 503).
 */
export class AwsClient {
  readonly http: HttpClient;
  readonly #options: AwsClientOptions;
  readonly #url: URL;

  constructor(options: AwsClientOptions) {
    this.#options = options;
    const endpoint = options.endpoint === '' ? `https://ec2.${options.region}.amazonaws.com` : options.endpoint;
    // The URL the HTTP client posts to (the endpoint's path, if any, plus '/'): the one signed.
    this.#url = new URL(endpoint);
    this.#url.pathname = `${this.#url.pathname.replace(/\/+$/, '')}/`;
    const secrets = options.credentials === null ? [] : [options.credentials.secretAccessKey];
    this.http = new HttpClient({
      name: 'aws',
      baseUrl: endpoint,
      secrets,
      logger: options.logger,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.retry === undefined ? {} : { retry: options.retry }),
    });
  }

  /** The group's ingress rules (every page). Throws when they cannot be read. */
  async ingressRules(groupId: string): Promise<Ec2Rule[]> {
    const rules: Ec2Rule[] = [];
    let token = '';
    for (let page = 0; page < 100; page++) {
      const params: Record<string, string> = {
        'Filter.1.Name': 'group-id',
        'Filter.1.Value.1': groupId,
        MaxResults: '1000',
        ...(token === '' ? {} : { NextToken: token }),
      };
      const answer = await this.call('DescribeSecurityGroupRules', params);
      if (!answer.ok) throw new Error(describeFailure(`read the rules of security group ${groupId}`, answer));
      rules.push(...ec2Rules(answer.root).filter((rule) => !rule.isEgress && rule.groupId === groupId));
      token = find(answer.root, 'nextToken')?.text.trim() ?? '';
      if (token === '') break;
    }
    return rules;
  }

  /** Adds tcp `port` ingress from each permission's CIDR, in one call. */
  authorize(groupId: string, port: number, permissions: readonly Ec2Permission[]): Promise<Ec2Answer> {
    const params: Record<string, string> = {
      GroupId: groupId,
      'IpPermissions.1.IpProtocol': 'tcp',
      'IpPermissions.1.FromPort': String(port),
      'IpPermissions.1.ToPort': String(port),
    };
    let v4 = 0;
    let v6 = 0;
    for (const permission of permissions) {
      if (permission.family === 'inet') {
        v4 += 1;
        params[`IpPermissions.1.IpRanges.${v4}.CidrIp`] = permission.cidr;
        params[`IpPermissions.1.IpRanges.${v4}.Description`] = permission.description;
      } else {
        v6 += 1;
        params[`IpPermissions.1.Ipv6Ranges.${v6}.CidrIpv6`] = permission.cidr;
        params[`IpPermissions.1.Ipv6Ranges.${v6}.Description`] = permission.description;
      }
    }
    return this.call('AuthorizeSecurityGroupIngress', params);
  }

  /** Removes rules by their ids, in one call. */
  revoke(groupId: string, ruleIds: readonly string[]): Promise<Ec2Answer> {
    const params: Record<string, string> = { GroupId: groupId };
    ruleIds.forEach((id, index) => (params[`SecurityGroupRuleId.${index + 1}`] = id));
    return this.call('RevokeSecurityGroupIngress', params);
  }

  /** One signed call. Throws only when no answer came (network, TLS, no credentials). */
  async call(action: string, params: Readonly<Record<string, string>>): Promise<Ec2Answer> {
    const credentials = this.#options.credentials ?? (await this.#options.chain.get());
    const form = { Action: action, Version: API_VERSION, ...params };
    // The HTTP client sends exactly this serialisation, so the signed hash matches the body.
    const body = new URLSearchParams(form).toString();
    const headers = signV4({
      method: 'POST',
      url: this.#url,
      body,
      region: this.#options.region,
      service: 'ec2',
      credentials,
    });
    const response = await this.http.request({
      method: 'POST',
      path: '/',
      form,
      headers: { ...headers, accept: 'text/xml' },
      idempotent: true,
    });
    const root = readEc2Xml(response.body);
    if (response.status >= 200 && response.status <= 299 && root !== null && ec2Error(root) === null) {
      return { ok: true, root };
    }
    const error = ec2Error(root) ?? {
      code: `HTTP${response.status}`,
      message: `HTTP ${response.status}${this.http.snippet(response.body)}`,
    };
    if (AUTH_CODES.has(error.code) && this.#options.credentials === null) this.#options.chain.reset();
    return {
      ok: false,
      status: response.status,
      error: { code: error.code, message: this.http.redact(error.message) },
    };
  }

  close(): void {
    this.http.close();
  }
}

/** A failed call as one line for a grant's error. */
export function describeFailure(what: string, answer: Extract<Ec2Answer, { ok: false }>): string {
  const { code, message } = answer.error;
  let hint = '';
  if (AUTH_CODES.has(code))
    hint =
      ' (check the backend keys and that the IAM policy allows ec2:AuthorizeSecurityGroupIngress, ec2:RevokeSecurityGroupIngress and ec2:DescribeSecurityGroupRules)';
  else if (THROTTLING_CODES.has(code)) hint = ' (throttled by EC2; tried again with back-off)';
  else if (code === 'RulesPerSecurityGroupLimitExceeded')
    hint =
      ' (the security group holds as many rules as its quota allows, 60 by default: remove grants or raise the quota)';
  return `aws: could not ${what}: ${code}${message === '' ? '' : `: ${message}`}${hint}`;
}
