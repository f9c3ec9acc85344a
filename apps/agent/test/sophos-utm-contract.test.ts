import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { SophosUtmFake } from './fakes/sophos-utm-fake.js';
import { selfSignedCertificate } from '@postern/test-support';
import { UTM_PLACEHOLDER } from '../src/drivers/vendors/sophosutm/sophosutm-client.js';
import { SophosUtmDriver } from '../src/drivers/vendors/sophosutm/sophosutm-driver.js';

const KEY = 'utm-contract-token-5f0e93';
const GROUP = 'REF_NetGroPosternWeb';
const tls = selfSignedCertificate();

describeDriverContract('sophosutm', async () => {
  const fake = await SophosUtmFake.start({ apiKey: KEY, tls });
  fake.addGroup(GROUP, 'postern-web', [fake.addHost('office-lan', '192.0.2.200')]);
  const { options, logLines } = contractDriverOptions();
  const driver = new SophosUtmDriver(options);
  const names = () => fake.memberNames(GROUP);
  return {
    driver,
    knoc: contractKnoc('sophosutm', {
      name: 'web',
      url: 'https://intranet',
      backend: { Hostname: fake.hostname, Insecure: true, ApiKey: KEY },
      acl: { GroupReference: GROUP },
    }),
    device: {
      // The placeholder carries the marker but stands for no address.
      owned: () =>
        names()
          .filter((name) => name.startsWith('kk_') && name !== UTM_PLACEHOLDER.name)
          .map((name) => name.slice(3)),
      foreign: () => names().filter((name) => !name.startsWith('kk_')),
      refuse: (ip) => fake.refuseAddress(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => {
        fake.apiKey = 'rotated-on-the-utm';
      },
      requestCount: () => fake.requests.length,
      groupOfPosternOnly: () => {
        fake.addGroup(GROUP, 'postern-web', []);
        fake.refuseEmptyGroups();
      },
      impostor: (ip, { inGroup }) => {
        const ref = fake.addNetwork(`kk_${ip}`, '0.0.0.0', 0);
        if (inGroup) fake.addGroup(GROUP, 'postern-web', [...(fake.members(GROUP) ?? []), ref]);
      },
    },
    logLines,
    secrets: [KEY, Buffer.from(`token:${KEY}`).toString('base64')],
    auth: 'static-token',
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
