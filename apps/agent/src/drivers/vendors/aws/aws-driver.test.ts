import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentKnocOf } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { AwsEc2Fake } from '../../../../test/fakes/aws-ec2-fake.js';
import { entry, testDriverOptions, testKnoc, useCleanup } from '../../../../test/support/driver-test-kit.js';
import { startLoopbackServer } from '../../../../test/support/loopback-server.js';
import { AwsDriver, ruleDescription } from './aws-driver.js';

const KEY_ID = 'AKIADRIVERTEST00001';
const SECRET = 'driver/test+secret';
const GROUP = 'sg-0123456789abcdef0';
const cleanup = useCleanup();

async function setup(
  options: { env?: NodeJS.ProcessEnv; imdsEndpoint?: string; ruleLimit?: number; keys?: Record<string, string> } = {},
) {
  const fake = await AwsEc2Fake.start({
    keys: options.keys ?? { [KEY_ID]: SECRET },
    region: 'eu-central-1',
    ...(options.ruleLimit === undefined ? {} : { ruleLimit: options.ruleLimit }),
  });
  fake.addGroup(GROUP);
  const { options: driverOptions, lines, delays } = testDriverOptions();
  const driver = new AwsDriver({
    ...driverOptions,
    endpoint: fake.url,
    env: options.env ?? {},
    ...(options.imdsEndpoint === undefined ? {} : { imdsEndpoint: options.imdsEndpoint }),
  });
  cleanup.push(fake, driver);
  const knoc = (backend: Partial<AgentKnocOf<'aws'>['backend']> = {}, port = 22) =>
    testKnoc(
      'aws',
      { AccessKeyId: KEY_ID, SecretAccessKey: SECRET, Region: 'eu-central-1', ...backend },
      { SecurityGroupId: GROUP, Port: port },
      { url: 'ssh://bastion' },
    );
  return { fake, driver, knoc, lines, delays };
}

const entries = (...ips: string[]) => ips.map((ip) => entry(ip, { ttlSeconds: 600, userName: 'alice@example.com' }));
const actions = (fake: AwsEc2Fake) => fake.requests.map((request) => request.action);

describe('AwsDriver', () => {
  it('adds v4 and v6 rules in one Authorize call, described postern:, and reads them back', async () => {
    const { fake, driver, knoc } = await setup();
    const outcomes = await driver.apply(knoc(), entries('192.0.2.7', '2001:DB8::7', '10.1.0.0/16'));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(actions(fake)).toEqual([
      'DescribeSecurityGroupRules',
      'AuthorizeSecurityGroupIngress',
      'DescribeSecurityGroupRules',
    ]);
    expect(fake.rules(GROUP).map((rule) => [rule.cidr, rule.fromPort, rule.description])).toEqual([
      ['192.0.2.7/32', 22, 'postern: alice@example.com'],
      ['10.1.0.0/16', 22, 'postern: alice@example.com'],
      ['2001:db8::7/128', 22, 'postern: alice@example.com'],
    ]);
    expect((await driver.apply(knoc(), entries('192.0.2.7'))).every((outcome) => outcome.ok)).toBe(true);
    expect(actions(fake).slice(3)).toEqual(['DescribeSecurityGroupRules']);
  });

  it('keeps ports apart: a knoc on 443 neither lists nor removes the rules of a knoc on 22', async () => {
    const { fake, driver, knoc } = await setup();
    await driver.apply(knoc(), entries('192.0.2.7'));
    await driver.apply(knoc({}, 443), entries('192.0.2.8'));
    expect(await driver.list(knoc({}, 443))).toEqual(['192.0.2.8']);
    await driver.flush(knoc({}, 443));
    expect(fake.rules(GROUP).map((rule) => rule.cidr)).toEqual(['192.0.2.7/32']);
  });

  it('reports the rule limit on each entry that does not fit, and adds the ones that do', async () => {
    const { fake, driver, knoc } = await setup({ ruleLimit: 2 });
    const outcomes = await driver.apply(knoc(), entries('192.0.2.1', '192.0.2.2', '192.0.2.3'));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, false]);
    expect(outcomes[2]?.error).toMatch(/RulesPerSecurityGroupLimitExceeded.*quota/);
    expect(fake.rules(GROUP)).toHaveLength(2);
  });

  it('takes a rule added by someone else meanwhile (InvalidPermission.Duplicate) as success', async () => {
    const { fake, driver, knoc } = await setup();
    // Between the driver's read and its write, an admin adds the same rule in the console.
    let once = true;
    fake.requests.push = function (...items) {
      if (once && items[0]?.action === 'AuthorizeSecurityGroupIngress') {
        once = false;
        fake.addRule(GROUP, { protocol: 'tcp', fromPort: 22, toPort: 22, cidr: '192.0.2.7/32', description: 'admin' });
      }
      return Array.prototype.push.apply(this, items);
    };
    const outcomes = await driver.apply(knoc(), entries('192.0.2.7', '192.0.2.8'));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(
      fake
        .rules(GROUP)
        .map((rule) => rule.cidr)
        .sort(),
    ).toEqual(['192.0.2.7/32', '192.0.2.8/32']);
  });

  it('takes an admin’s equal rule as held: writes nothing, lists it as covered by others, and never revokes it', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addRule(GROUP, { protocol: 'tcp', fromPort: 22, toPort: 22, cidr: '192.0.2.9/32', description: 'office' });
    // Another port's rule covers nothing for this knoc.
    fake.addRule(GROUP, { protocol: 'tcp', fromPort: 443, toPort: 443, cidr: '192.0.2.10/32', description: 'web' });

    const outcomes = await driver.apply(knoc(), entries('192.0.2.9', '192.0.2.10'));

    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true]);
    expect(fake.rules(GROUP).filter((rule) => rule.cidr === '192.0.2.9/32')).toHaveLength(1);
    expect(await driver.list(knoc())).toEqual(['192.0.2.10']);
    expect(await driver.coveredByOthers(knoc())).toEqual(['192.0.2.9']);

    expect((await driver.remove(knoc(), entries('192.0.2.9', '192.0.2.10'))).every((outcome) => outcome.ok)).toBe(true);
    expect(fake.rules(GROUP).map((rule) => rule.description)).toEqual(['office', 'web']);
    expect(await driver.coveredByOthers(knoc())).toEqual(['192.0.2.9']);
  });

  it('retries throttling (RequestLimitExceeded) with back-off', async () => {
    const { fake, driver, knoc, delays } = await setup();
    fake.throttleNext(2);
    expect((await driver.apply(knoc(), entries('192.0.2.7')))[0]?.ok).toBe(true);
    expect(delays).toHaveLength(2);
    fake.throttleNext(10);
    const outcome = (await driver.apply(knoc(), entries('192.0.2.9')))[0];
    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toMatch(/RequestLimitExceeded/);
  });

  it('removes by rule id in one call, absent is fine, and never touches rules without the marker', async () => {
    const { fake, driver, knoc } = await setup();
    fake.addRule(GROUP, { protocol: 'tcp', fromPort: 22, toPort: 22, cidr: '192.0.2.9/32', description: 'office' });
    await driver.apply(knoc(), entries('192.0.2.7', '2001:db8::7'));
    fake.requests.length = 0;
    const outcomes = await driver.remove(knoc(), entries('192.0.2.7', '2001:db8::7', '192.0.2.9', '192.0.2.99'));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(actions(fake)).toEqual([
      'DescribeSecurityGroupRules',
      'RevokeSecurityGroupIngress',
      'DescribeSecurityGroupRules',
    ]);
    expect(fake.requests[1]?.params['SecurityGroupRuleId.1']).toMatch(/^sgr-/);
    expect(fake.requests[1]?.params['SecurityGroupRuleId.2']).toMatch(/^sgr-/);
    expect(fake.rules(GROUP).map((rule) => rule.description)).toEqual(['office']);
  });

  it('names a missing security group on every entry', async () => {
    const { driver, knoc } = await setup();
    const broken = { ...knoc(), acl: { SecurityGroupId: 'sg-0fffffffffffffff0', Port: 22 } };
    const outcomes = await driver.apply(broken, entries('192.0.2.7', '192.0.2.8'));
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, false]);
    expect(outcomes[0]?.error).toMatch(/InvalidGroup\.NotFound/);
  });

  it('uses the environment keys when the backend has none', async () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'AKIAENVIRONMENT0001',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
      AWS_SESSION_TOKEN: 'env-session',
    };
    const { fake, driver, knoc } = await setup({ env, keys: { AKIAENVIRONMENT0001: 'env-secret' } });
    expect((await driver.apply(knoc({ AccessKeyId: '', SecretAccessKey: '' }), entries('192.0.2.7')))[0]?.ok).toBe(
      true,
    );
    expect(fake.requests.every((request) => request.authorized)).toBe(true);
  });

  it('uses the shared credentials file profile when the backend has no keys', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'aws-creds-'));
    const file = path.join(dir, 'credentials');
    writeFileSync(
      file,
      '[default]\naws_access_key_id = AKIAWRONG\naws_secret_access_key = x\n\n[postern]\naws_access_key_id = AKIAPROFILE00000001\naws_secret_access_key = profile-secret\n',
    );
    const env = { AWS_SHARED_CREDENTIALS_FILE: file, AWS_PROFILE: 'postern' };
    const { driver, knoc } = await setup({ env, keys: { AKIAPROFILE00000001: 'profile-secret' } });
    expect((await driver.apply(knoc({ AccessKeyId: '', SecretAccessKey: '' }), entries('192.0.2.7')))[0]?.ok).toBe(
      true,
    );
  });

  it('uses the instance role through IMDSv2 (a session token first) when nothing else has keys', async () => {
    const seen: string[] = [];
    const imds = await startLoopbackServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (
        req.method === 'PUT' &&
        req.url === '/latest/api/token' &&
        req.headers['x-aws-ec2-metadata-token-ttl-seconds'] !== undefined
      ) {
        res.end('imds-token-1');
        return;
      }
      if (req.headers['x-aws-ec2-metadata-token'] !== 'imds-token-1') {
        res.writeHead(401);
        res.end();
        return;
      }
      if (req.url === '/latest/meta-data/iam/security-credentials/') res.end('postern-role\n');
      else if (req.url === '/latest/meta-data/iam/security-credentials/postern-role')
        res.end(
          JSON.stringify({
            Code: 'Success',
            AccessKeyId: 'ASIAROLE0000000001',
            SecretAccessKey: 'role-secret',
            Token: 'role-session-token',
            Expiration: new Date(Date.now() + 3600_000).toISOString(),
          }),
        );
      else {
        res.writeHead(404);
        res.end();
      }
    });
    cleanup.push(() => imds.close());
    const { fake, driver, knoc, lines } = await setup({
      env: { HOME: mkdtempSync(path.join(os.tmpdir(), 'aws-home-')) },
      imdsEndpoint: imds.url,
      keys: { ASIAROLE0000000001: 'role-secret' },
    });
    expect((await driver.apply(knoc({ AccessKeyId: '', SecretAccessKey: '' }), entries('192.0.2.7')))[0]?.ok).toBe(
      true,
    );
    expect(await driver.list(knoc({ AccessKeyId: '', SecretAccessKey: '' }))).toEqual(['192.0.2.7']);
    expect(seen).toEqual([
      'PUT /latest/api/token',
      'GET /latest/meta-data/iam/security-credentials/',
      'GET /latest/meta-data/iam/security-credentials/postern-role',
    ]);
    expect(fake.requests.every((request) => request.authorized)).toBe(true);
    expect(lines.join('\n')).not.toContain('role-secret');
  });

  it('fails clearly when the backend has no keys and the host has no credentials', async () => {
    const { driver, knoc } = await setup({ env: { HOME: '/nonexistent' }, imdsEndpoint: 'http://127.0.0.1:9' });
    const outcome = (await driver.apply(knoc({ AccessKeyId: '', SecretAccessKey: '' }), entries('192.0.2.7')))[0];
    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toMatch(/no AWS credentials were found/);
  });

  it('writes descriptions EC2 accepts', () => {
    expect(ruleDescription('jörg <admin>')).toBe('postern: j_rg _admin_');
    expect(ruleDescription('')).toBe('postern:');
  });
});
