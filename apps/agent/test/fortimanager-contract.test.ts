import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { FortimanagerFake } from './fakes/fortimanager-fake.js';
import { selfSignedCertificate } from '@postern/test-support';
import { FortimanagerDriver } from '../src/drivers/vendors/fortimanager/fortimanager-driver.js';

const KEY = 'fmg-contract-key-8c2d41';
const GROUP = 'postern-web';
const tls = selfSignedCertificate();

describeDriverContract('fortimanager', async () => {
  const fake = await FortimanagerFake.start({ apiKey: KEY, tls, adoms: ['branch'] });
  fake.addGroup(GROUP, { adom: 'branch', members: ['none', 'office-lan'] });
  fake.addGroup(GROUP, { adom: 'branch', family: 'ipv6', members: ['none'] });
  fake.addPackage('branch-pkg', ['FGT-1'], 'branch');
  const { options, logLines } = contractDriverOptions();
  const driver = new FortimanagerDriver({ ...options, pollMs: 0 });
  const members = () => [
    ...(fake.members(GROUP, { adom: 'branch' }) ?? []),
    ...(fake.members(GROUP, { adom: 'branch', family: 'ipv6' }) ?? []),
  ];
  return {
    driver,
    knoc: contractKnoc('fortimanager', {
      name: 'web',
      url: 'https://intranet',
      backend: { Hostname: fake.hostname, Insecure: true, ApiKey: KEY },
      acl: { Name: `branch/${GROUP}` },
    }),
    device: {
      owned: () =>
        members()
          .filter((name) => name.startsWith('kk_'))
          .map((name) => name.slice(3)),
      foreign: () => members().filter((name) => !name.startsWith('kk_')),
      refuse: (ip) => fake.refuseValue(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => {
        fake.apiKey = 'rotated-on-the-device';
      },
      requestCount: () => fake.httpRequests,
      groupOfPosternOnly: () => {
        fake.addGroup(GROUP, { adom: 'branch', members: [] });
        fake.addGroup(GROUP, { adom: 'branch', family: 'ipv6', members: [] });
      },
      impostor: (ip, { inGroup }) =>
        fake.addAddress(
          `kk_${ip}`,
          { subnet: ['0.0.0.0', '0.0.0.0'] },
          { adom: 'branch', ...(inGroup ? { memberOf: GROUP } : {}) },
        ),
    },
    logLines,
    secrets: [KEY],
    auth: 'static-token',
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
