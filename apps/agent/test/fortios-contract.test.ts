import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { FortiosFake } from './fakes/fortios-fake.js';
import { FortiosDriver } from '../src/drivers/vendors/fortios/fortios-driver.js';

const TOKEN = 'contract-token-7f3a9c';
const GROUP = 'postern-web';

describeDriverContract('fortios', async () => {
  const fake = await FortiosFake.start({ token: TOKEN, vdoms: ['dmz'] });
  fake.addGroup(GROUP, { vdom: 'dmz', members: ['none', 'office-lan'] });
  fake.addGroup(GROUP, { vdom: 'dmz', family: 'ipv6', members: ['none'] });
  const { options, logLines } = contractDriverOptions();
  const driver = new FortiosDriver(options);
  const members = () => [
    ...(fake.members(GROUP, { vdom: 'dmz' }) ?? []),
    ...(fake.members(GROUP, { vdom: 'dmz', family: 'ipv6' }) ?? []),
  ];
  return {
    driver,
    knoc: contractKnoc('fortios', {
      name: 'web',
      url: 'https://intranet',
      backend: { Url: fake.url, Bearer: TOKEN, Insecure: false, Prefix: 'kk_', VDOM: 'dmz' },
      acl: { Name: GROUP },
    }),
    device: {
      owned: () =>
        members()
          .filter((name) => name.startsWith('kk_'))
          .map((name) => name.slice(3)),
      foreign: () => members().filter((name) => !name.startsWith('kk_')),
      refuse: (ip) => fake.refuseValue(`${ip}/32`),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => {
        fake.token = 'rotated-on-the-device';
      },
      requestCount: () => fake.requests.length,
      groupOfPosternOnly: () => {
        fake.addGroup(GROUP, { vdom: 'dmz', members: [] });
        fake.addGroup(GROUP, { vdom: 'dmz', family: 'ipv6', members: [] });
      },
      impostor: (ip, { inGroup }) => {
        fake.addAddress(`kk_${ip}`, '0.0.0.0 0.0.0.0', { vdom: 'dmz' });
        if (inGroup) fake.addMember(GROUP, `kk_${ip}`, { vdom: 'dmz' });
      },
    },
    logLines,
    secrets: [TOKEN],
    auth: 'static-token',
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
