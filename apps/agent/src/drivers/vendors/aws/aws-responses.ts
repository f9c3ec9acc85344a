import { find, findAll, parseXml, type XmlElement } from '../panos/panos-xml.js';

/** An EC2 Query API error: `<Response><Errors><Error><Code>…</Code><Message>…</Message></Error></Errors>`. */
export interface Ec2Error {
  code: string;
  message: string;
}

/** One ingress or egress rule as DescribeSecurityGroupRules and AuthorizeSecurityGroupIngress list it. */
export interface Ec2Rule {
  id: string;
  groupId: string;
  isEgress: boolean;
  protocol: string;
  fromPort: number;
  toPort: number;
  /** The rule's CIDR (IPv4 or IPv6), '' for a rule naming a group or prefix list. */
  cidr: string;
  description: string;
}

/** The answer's root element, or null when the body is no XML. */
export function readEc2Xml(body: unknown): XmlElement | null {
  if (typeof body !== 'string' || body.trim() === '') return null;
  try {
    return parseXml(body);
  } catch {
    return null;
  }
}

/** The first error of an error answer, or null when it names none. */
export function ec2Error(root: XmlElement | null): Ec2Error | null {
  if (root === null) return null;
  const error = find(root, 'Errors/Error') ?? (root.name === 'Error' ? root : undefined);
  if (error === undefined) return null;
  return { code: find(error, 'Code')?.text.trim() ?? '', message: find(error, 'Message')?.text.trim() ?? '' };
}

/** The rules in a `securityGroupRuleSet` (DescribeSecurityGroupRules, AuthorizeSecurityGroupIngress). */
export function ec2Rules(root: XmlElement): Ec2Rule[] {
  return findAll(root, 'securityGroupRuleSet/item').map((item) => {
    const text = (name: string) => find(item, name)?.text.trim() ?? '';
    return {
      id: text('securityGroupRuleId'),
      groupId: text('groupId'),
      isEgress: text('isEgress') === 'true',
      protocol: text('ipProtocol'),
      fromPort: Number(text('fromPort')),
      toPort: Number(text('toPort')),
      cidr: text('cidrIpv4') || text('cidrIpv6'),
      description: text('description'),
    };
  });
}

/** Codes that mean "try later" (EC2 throttling is per account, region and API). */
export const THROTTLING_CODES: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'ServiceUnavailable',
  'Unavailable',
  'InternalError',
]);

/** Codes that mean the credentials are wrong or may not do this. */
export const AUTH_CODES: ReadonlySet<string> = new Set([
  'AuthFailure',
  'UnauthorizedOperation',
  'SignatureDoesNotMatch',
  'InvalidClientTokenId',
  'ExpiredToken',
  'RequestExpired',
]);
