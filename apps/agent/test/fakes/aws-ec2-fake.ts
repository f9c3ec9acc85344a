/**
 * FAKE AWS EC2 (Query API, security-group rules): a contract fake for the agent's AWS driver tests,
 * NOT AWS. Written from VENDORS.md section 1.7 and its "moto" section, and from the EC2 API reference
 * (AuthorizeSecurityGroupIngress, RevokeSecurityGroupIngress, DescribeSecurityGroupRules); the
 * request spelling is what @aws-sdk/client-ec2's serialiser sends (aws-ec2-fake.test.ts drives this
 * fake through the real SDK). What it models:
 *
 * - `POST /` form-encoded `Action=…&Version=2016-11-15&…`, signed with SigV4 (service ec2): the
 *   signature is checked over the headers the request names in SignedHeaders and the body's hash;
 *   an unknown key id or a wrong signature answers 401 AuthFailure.
 * - AuthorizeSecurityGroupIngress (`IpPermissions.N.IpProtocol/FromPort/ToPort`,
 *   `IpPermissions.N.IpRanges.M.CidrIp/Description`, `IpPermissions.N.Ipv6Ranges.M.CidrIpv6/Description`):
 *   all or nothing. A rule already there (same protocol, ports, CIDR; the description does not count)
 *   answers 400 InvalidPermission.Duplicate; the same CIDR twice in one call 400 InvalidParameterValue;
 *   more ingress rules than the group's limit (60 by default) 400 RulesPerSecurityGroupLimitExceeded;
 *   an unknown group 400 InvalidGroup.NotFound. Success lists the new rules (`securityGroupRuleSet`).
 * - RevokeSecurityGroupIngress by `SecurityGroupRuleId.N`: all or nothing; an id the group does not
 *   hold answers 400 InvalidSecurityGroupRuleId.NotFound.
 * - DescribeSecurityGroupRules with `Filter.1.Name=group-id`, `Filter.1.Value.1`, `MaxResults` and
 *   `NextToken`, paged.
 * - Errors: `<Response><Errors><Error><Code/><Message/></Error></Errors><RequestID/></Response>`.
 *
 * Test switches: throttle the next N calls (503 RequestLimitExceeded), redirect every call, refuse one
 * CIDR (400 InvalidParameterValue), rotate the keys, a smaller rule limit, a smaller page size.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';

export interface AwsFakeRule {
  id: string;
  groupId: string;
  protocol: string;
  fromPort: number;
  toPort: number;
  /** IPv4 or IPv6 CIDR, as written. */
  cidr: string;
  description: string;
}

export interface AwsFakeRequest {
  action: string;
  params: Record<string, string>;
  authorized: boolean;
}

export interface AwsEc2FakeOptions {
  /** Access key id → secret access key. */
  keys: Record<string, string>;
  region?: string;
  ruleLimit?: number;
  pageSize?: number;
}

const XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`);
}

export class AwsEc2Fake {
  readonly requests: AwsFakeRequest[] = [];
  keys: Record<string, string>;
  readonly region: string;
  ruleLimit: number;
  pageSize: number;
  #server: LoopbackServer | null = null;
  readonly #groups = new Map<string, AwsFakeRule[]>();
  #throttle = 0;
  #redirect: string | null = null;
  readonly #refused = new Set<string>();
  #nextRule = 1;

  private constructor(options: AwsEc2FakeOptions) {
    this.keys = { ...options.keys };
    this.region = options.region ?? 'eu-central-1';
    this.ruleLimit = options.ruleLimit ?? 60;
    this.pageSize = options.pageSize ?? 1000;
  }

  static async start(options: AwsEc2FakeOptions): Promise<AwsEc2Fake> {
    const fake = new AwsEc2Fake(options);
    fake.#server = await startLoopbackServer((req, res, body) => fake.#handle(req, res, body));
    return fake;
  }

  get url(): string {
    if (this.#server === null) throw new Error('the AWS EC2 fake is not running');
    return this.#server.url;
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#server = null;
  }

  addGroup(groupId: string): void {
    if (!this.#groups.has(groupId)) this.#groups.set(groupId, []);
  }

  /** Adds a rule as an admin would in the console. */
  addRule(groupId: string, rule: Omit<AwsFakeRule, 'id' | 'groupId'>): void {
    this.#group(groupId).push({ ...rule, id: this.#ruleId(), groupId });
  }

  rules(groupId: string): AwsFakeRule[] {
    return [...this.#group(groupId)];
  }

  throttleNext(calls: number): void {
    this.#throttle = calls;
  }

  redirectTo(url: string | null): void {
    this.#redirect = url;
  }

  refuseCidr(cidr: string): void {
    this.#refused.add(cidr);
  }

  #group(groupId: string): AwsFakeRule[] {
    const group = this.#groups.get(groupId);
    if (group === undefined) throw new Error(`no group ${groupId}`);
    return group;
  }

  #ruleId(): string {
    return `sgr-${(this.#nextRule++).toString(16).padStart(17, '0')}`;
  }

  #handle(req: IncomingMessage, res: ServerResponse, body: string): void {
    const params = Object.fromEntries(new URLSearchParams(body));
    const action = params.Action ?? '';
    const authorized = this.#verify(req, body);
    this.requests.push({ action, params, authorized });
    if (this.#redirect !== null) {
      res.writeHead(307, { location: this.#redirect });
      res.end();
      return;
    }
    if (!authorized)
      return this.#error(res, 401, 'AuthFailure', 'AWS was not able to validate the provided access credentials');
    if (this.#throttle > 0) {
      this.#throttle -= 1;
      return this.#error(res, 503, 'RequestLimitExceeded', 'Request limit exceeded.');
    }
    if (req.method !== 'POST' || req.url !== '/') return this.#error(res, 400, 'InvalidAction', 'POST / only');
    if (params.Version !== '2016-11-15') return this.#error(res, 400, 'InvalidParameterValue', 'unknown Version');
    switch (action) {
      case 'AuthorizeSecurityGroupIngress':
        return this.#authorize(res, params);
      case 'RevokeSecurityGroupIngress':
        return this.#revoke(res, params);
      case 'DescribeSecurityGroupRules':
        return this.#describe(res, params);
      default:
        return this.#error(res, 400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
    }
  }

  #authorize(res: ServerResponse, params: Record<string, string>): void {
    const groupId = params.GroupId ?? '';
    const group = this.#groups.get(groupId);
    if (group === undefined)
      return this.#error(res, 400, 'InvalidGroup.NotFound', `The security group '${groupId}' does not exist`);
    const added: AwsFakeRule[] = [];
    for (let p = 1; params[`IpPermissions.${p}.IpProtocol`] !== undefined; p++) {
      const protocol = params[`IpPermissions.${p}.IpProtocol`] ?? '';
      const fromPort = Number(params[`IpPermissions.${p}.FromPort`]);
      const toPort = Number(params[`IpPermissions.${p}.ToPort`]);
      for (const [list, field] of [
        ['IpRanges', 'CidrIp'],
        ['Ipv6Ranges', 'CidrIpv6'],
      ] as const) {
        for (let r = 1; params[`IpPermissions.${p}.${list}.${r}.${field}`] !== undefined; r++) {
          const cidr = params[`IpPermissions.${p}.${list}.${r}.${field}`] ?? '';
          const description = params[`IpPermissions.${p}.${list}.${r}.Description`] ?? '';
          if (this.#refused.has(cidr) || !/\/\d+$/.test(cidr))
            return this.#error(res, 400, 'InvalidParameterValue', `Value (${cidr}) for parameter cidrIp is invalid.`);
          if (added.some((rule) => rule.cidr === cidr && rule.fromPort === fromPort && rule.protocol === protocol))
            return this.#error(res, 400, 'InvalidParameterValue', 'The same permission must not appear multiple times');
          const same = (rule: AwsFakeRule) =>
            rule.cidr === cidr && rule.protocol === protocol && rule.fromPort === fromPort && rule.toPort === toPort;
          if (group.some(same))
            return this.#error(
              res,
              400,
              'InvalidPermission.Duplicate',
              `the specified rule "peer: ${cidr}, TCP, from port: ${fromPort}, to port: ${toPort}, ALLOW" already exists`,
            );
          added.push({ id: '', groupId, protocol, fromPort, toPort, cidr, description });
        }
      }
    }
    if (group.length + added.length > this.ruleLimit)
      return this.#error(
        res,
        400,
        'RulesPerSecurityGroupLimitExceeded',
        'The maximum number of rules per security group has been reached.',
      );
    for (const rule of added) {
      rule.id = this.#ruleId();
      group.push(rule);
    }
    this.#ok(res, 'AuthorizeSecurityGroupIngressResponse', `<return>true</return>${ruleSet(added)}`);
  }

  #revoke(res: ServerResponse, params: Record<string, string>): void {
    const groupId = params.GroupId ?? '';
    const group = this.#groups.get(groupId);
    if (group === undefined)
      return this.#error(res, 400, 'InvalidGroup.NotFound', `The security group '${groupId}' does not exist`);
    const ids: string[] = [];
    for (let i = 1; params[`SecurityGroupRuleId.${i}`] !== undefined; i++)
      ids.push(params[`SecurityGroupRuleId.${i}`] ?? '');
    const missing = ids.find((id) => !group.some((rule) => rule.id === id));
    if (missing !== undefined)
      return this.#error(
        res,
        400,
        'InvalidSecurityGroupRuleId.NotFound',
        `The security group rule ID '${missing}' does not exist`,
      );
    this.#groups.set(
      groupId,
      group.filter((rule) => !ids.includes(rule.id)),
    );
    this.#ok(res, 'RevokeSecurityGroupIngressResponse', '<return>true</return>');
  }

  #describe(res: ServerResponse, params: Record<string, string>): void {
    let rules = [...this.#groups.values()].flat();
    for (let f = 1; params[`Filter.${f}.Name`] !== undefined; f++) {
      const values: string[] = [];
      for (let v = 1; params[`Filter.${f}.Value.${v}`] !== undefined; v++)
        values.push(params[`Filter.${f}.Value.${v}`] ?? '');
      if (params[`Filter.${f}.Name`] !== 'group-id')
        return this.#error(res, 400, 'InvalidParameterValue', 'this fake filters by group-id only');
      rules = rules.filter((rule) => values.includes(rule.groupId));
    }
    const size = Math.min(Number(params.MaxResults ?? 1000), this.pageSize);
    const start = Number(params.NextToken ?? '0');
    const page = rules.slice(start, start + size);
    const next = start + size < rules.length ? `<nextToken>${start + size}</nextToken>` : '';
    this.#ok(res, 'DescribeSecurityGroupRulesResponse', `${ruleSet(page)}${next}`);
  }

  #ok(res: ServerResponse, element: string, inner: string): void {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<${element} xmlns="${XMLNS}"><requestId>${randomBytes(8).toString('hex')}</requestId>${inner}</${element}>`;
    res.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' });
    res.end(xml);
  }

  #error(res: ServerResponse, status: number, code: string, message: string): void {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>${randomBytes(8).toString('hex')}</RequestID></Response>`;
    res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8' });
    res.end(xml);
  }

  /** SigV4 as AWS checks it: the named headers, the body hash, the key's secret. */
  #verify(req: IncomingMessage, body: string): boolean {
    const auth = req.headers.authorization ?? '';
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
        auth,
      );
    if (match === null) return false;
    const [, keyId = '', day = '', region = '', service = '', signed = '', signature = ''] = match;
    const secret = this.keys[keyId];
    if (secret === undefined || region !== this.region || service !== 'ec2') return false;
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    if (!amzDate.startsWith(day)) return false;
    const names = signed.split(';');
    if (!names.includes('host') || !names.includes('x-amz-date')) return false;
    const canonicalHeaders = names
      .map((name) => {
        const value = req.headers[name];
        return `${name}:${(Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')}\n`;
      })
      .join('');
    const url = new URL(req.url ?? '/', 'http://fake');
    const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
    const canonical = [req.method, url.pathname, url.search.slice(1), canonicalHeaders, signed, sha(body)].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', amzDate, `${day}/${region}/${service}/aws4_request`, sha(canonical)].join('\n');
    let key: Buffer = createHmac('sha256', `AWS4${secret}`).update(day).digest();
    for (const part of [region, service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
    return createHmac('sha256', key).update(toSign).digest('hex') === signature;
  }
}

function ruleSet(rules: readonly AwsFakeRule[]): string {
  const items = rules
    .map(
      (rule) =>
        `<item><securityGroupRuleId>${rule.id}</securityGroupRuleId><groupId>${rule.groupId}</groupId><groupOwnerId>123456789012</groupOwnerId><isEgress>false</isEgress><ipProtocol>${rule.protocol}</ipProtocol><fromPort>${rule.fromPort}</fromPort><toPort>${rule.toPort}</toPort>` +
        `${rule.cidr.includes(':') ? `<cidrIpv6>${rule.cidr}</cidrIpv6>` : `<cidrIpv4>${rule.cidr}</cidrIpv4>`}` +
        `${rule.description === '' ? '' : `<description>${escapeXml(rule.description)}</description>`}<tagSet/></item>`,
    )
    .join('');
  return `<securityGroupRuleSet>${items}</securityGroupRuleSet>`;
}
