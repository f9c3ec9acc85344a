/**
 * The EC2 fake spoken to by the real @aws-sdk/client-ec2 (a devDependency for this test only): proof
 * that the fake reads requests as the SDK serialises and signs them, and that the SDK parses its
 * answers and errors, so the driver's thin client and the fake agree with AWS's own client.
 */
import {
  AuthorizeSecurityGroupIngressCommand,
  DescribeSecurityGroupRulesCommand,
  EC2Client,
  EC2ServiceException,
  RevokeSecurityGroupIngressCommand,
} from '@aws-sdk/client-ec2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AwsEc2Fake } from './aws-ec2-fake.js';

const KEY_ID = 'AKIAFAKETEST0000001';
const SECRET = 'fake/test+secret-key';
const GROUP = 'sg-0aaaabbbbccccdddd';

let fake: AwsEc2Fake;
let ec2: EC2Client;

beforeEach(async () => {
  fake = await AwsEc2Fake.start({ keys: { [KEY_ID]: SECRET }, region: 'us-gov-west-1', ruleLimit: 3, pageSize: 2 });
  fake.addGroup(GROUP);
  ec2 = new EC2Client({
    region: 'us-gov-west-1',
    endpoint: fake.url,
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
});

afterEach(async () => {
  ec2.destroy();
  await fake.close();
});

const authorize = (cidrs: string[], port = 22) =>
  ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: GROUP,
      IpPermissions: [
        {
          IpProtocol: 'tcp',
          FromPort: port,
          ToPort: port,
          IpRanges: cidrs.filter((c) => !c.includes(':')).map((CidrIp) => ({ CidrIp, Description: 'postern: sdk' })),
          Ipv6Ranges: cidrs
            .filter((c) => c.includes(':'))
            .map((CidrIpv6) => ({ CidrIpv6, Description: 'postern: sdk' })),
        },
      ],
    }),
  );

async function errorOf(call: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof EC2ServiceException) return { name: error.name, status: error.$metadata.httpStatusCode };
    throw error;
  }
  throw new Error('the call succeeded');
}

describe('AWS EC2 fake, driven by @aws-sdk/client-ec2', () => {
  it('authorises v4 and v6 rules, lists them paged, and revokes by rule id', async () => {
    const added = await authorize(['192.0.2.7/32', '2001:db8::7/128']);
    expect(added.Return).toBe(true);
    expect(added.SecurityGroupRules?.map((rule) => [rule.CidrIpv4 ?? rule.CidrIpv6, rule.FromPort])).toEqual([
      ['192.0.2.7/32', 22],
      ['2001:db8::7/128', 22],
    ]);
    fake.addRule(GROUP, { protocol: 'tcp', fromPort: 443, toPort: 443, cidr: '0.0.0.0/0', description: '' });

    const first = await ec2.send(
      new DescribeSecurityGroupRulesCommand({ Filters: [{ Name: 'group-id', Values: [GROUP] }], MaxResults: 5 }),
    );
    expect(first.SecurityGroupRules).toHaveLength(2);
    expect(first.NextToken).toBeDefined();
    const second = await ec2.send(
      new DescribeSecurityGroupRulesCommand({
        Filters: [{ Name: 'group-id', Values: [GROUP] }],
        MaxResults: 5,
        NextToken: first.NextToken,
      }),
    );
    expect(second.SecurityGroupRules?.map((rule) => rule.CidrIpv4)).toEqual(['0.0.0.0/0']);
    expect(second.NextToken).toBeUndefined();
    expect(first.SecurityGroupRules?.[0]).toMatchObject({
      IsEgress: false,
      IpProtocol: 'tcp',
      Description: 'postern: sdk',
    });

    const ids = added.SecurityGroupRules?.map((rule) => rule.SecurityGroupRuleId ?? '') ?? [];
    const revoked = await ec2.send(
      new RevokeSecurityGroupIngressCommand({ GroupId: GROUP, SecurityGroupRuleIds: ids }),
    );
    expect(revoked.Return).toBe(true);
    expect(fake.rules(GROUP).map((rule) => rule.cidr)).toEqual(['0.0.0.0/0']);
  });

  it('answers a duplicate, an absent rule, the rule limit and throttling as the SDK names them', async () => {
    await authorize(['192.0.2.7/32']);
    expect(await errorOf(authorize(['192.0.2.7/32']))).toEqual({ name: 'InvalidPermission.Duplicate', status: 400 });
    expect(
      await errorOf(
        ec2.send(new RevokeSecurityGroupIngressCommand({ GroupId: GROUP, SecurityGroupRuleIds: ['sgr-0'] })),
      ),
    ).toEqual({ name: 'InvalidSecurityGroupRuleId.NotFound', status: 400 });
    expect(await errorOf(authorize(['192.0.2.8/32', '192.0.2.9/32', '192.0.2.10/32']))).toEqual({
      name: 'RulesPerSecurityGroupLimitExceeded',
      status: 400,
    });
    expect(fake.rules(GROUP)).toHaveLength(1);
    fake.throttleNext(1);
    expect(await errorOf(authorize(['192.0.2.8/32']))).toEqual({ name: 'RequestLimitExceeded', status: 503 });
    expect((await authorize(['192.0.2.8/32'])).Return).toBe(true);
  });

  it('checks the signature: a wrong secret is AuthFailure and changes nothing', async () => {
    const wrong = new EC2Client({
      region: 'us-gov-west-1',
      endpoint: fake.url,
      credentials: { accessKeyId: KEY_ID, secretAccessKey: 'not-the-secret' },
      maxAttempts: 1,
    });
    const call = wrong.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: GROUP,
        IpPermissions: [{ IpProtocol: 'tcp', FromPort: 22, ToPort: 22, IpRanges: [{ CidrIp: '192.0.2.7/32' }] }],
      }),
    );
    expect(await errorOf(call)).toEqual({ name: 'AuthFailure', status: 401 });
    wrong.destroy();
    expect(fake.rules(GROUP)).toEqual([]);
    expect(fake.requests.map((request) => request.authorized)).toEqual([false]);
  });
});
