import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { AwsEc2Fake } from './fakes/aws-ec2-fake.js';
import { parseAddress } from '../src/drivers/addresses.js';
import { AwsDriver } from '../src/drivers/vendors/aws/aws-driver.js';

const KEY_ID = 'AKIACONTRACT000001';
const SECRET = 'contract/secret+access-key-9f8e7d6c5b4a';
const GROUP = 'sg-0123456789abcdef0';

describeDriverContract('aws', async () => {
  const fake = await AwsEc2Fake.start({ keys: { [KEY_ID]: SECRET }, region: 'eu-central-1', pageSize: 3 });
  fake.addGroup(GROUP);
  fake.addRule(GROUP, { protocol: 'tcp', fromPort: 22, toPort: 22, cidr: '203.0.113.128/25', description: 'office' });
  fake.addRule(GROUP, { protocol: 'tcp', fromPort: 443, toPort: 443, cidr: '0.0.0.0/0', description: 'postern: web' });
  const { options, logLines } = contractDriverOptions();
  const driver = new AwsDriver({
    ...options,
    endpoint: fake.url,
    env: {},
  });
  const onPort = () => fake.rules(GROUP).filter((rule) => rule.fromPort === 22);
  return {
    driver,
    knoc: contractKnoc('aws', {
      name: 'ssh',
      url: 'ssh://bastion',
      backend: { AccessKeyId: KEY_ID, SecretAccessKey: SECRET, Region: 'eu-central-1' },
      acl: { SecurityGroupId: GROUP, Port: 22 },
    }),
    device: {
      owned: () =>
        onPort()
          .filter((rule) => rule.description.startsWith('postern:'))
          .map((rule) => parseAddress(rule.cidr)?.canonical ?? rule.cidr),
      foreign: () =>
        fake
          .rules(GROUP)
          .filter((rule) => rule.fromPort !== 22 || !rule.description.startsWith('postern:'))
          .map((rule) => `${rule.cidr} ${rule.fromPort}`),
      refuse: (ip) => fake.refuseCidr(parseAddress(ip)?.cidr ?? ip),
      redirectTo: (url) => fake.redirectTo(url),
      invalidateCredential: () => {
        fake.keys = { [KEY_ID]: 'rotated-on-aws' };
      },
      requestCount: () => fake.requests.length,
    },
    logLines,
    secrets: [SECRET],
    auth: 'static-token',
    refusedCredential: /AuthFailure/,
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
