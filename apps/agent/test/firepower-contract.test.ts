import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { FmcFake } from './fakes/fmc-fake.js';
import { selfSignedCertificate } from '@postern/test-support';
import { FirepowerDriver } from '../src/drivers/vendors/firepower/firepower-driver.js';

const USER = 'postern-api';
const PASSWORD = 'contract-password-5b1e';
const DYNAMIC = '005056B6-DCA2-0ed3-0000-004294969346';
const OTHER = '005056B6-DCA2-0ed3-0000-004294969999';
const GROUP = '005056B6-DCA2-0ed3-0000-004294970001';
const tls = selfSignedCertificate();

describeDriverContract('firepower', async () => {
  const fake = await FmcFake.start({ username: USER, password: PASSWORD, tls });
  fake.addDynamicObject(DYNAMIC, 'postern-web');
  // Another object on the same FMC, not the knoc's: the driver must never change it.
  fake.addDynamicObject(OTHER, 'office', ['198.51.100.200', '10.99.0.0/16']);
  const { options, logLines } = contractDriverOptions();
  const driver = new FirepowerDriver(options);
  // The tokens the fake issues are secrets too; the list grows as it issues them.
  const secrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64')];
  return {
    driver,
    knoc: contractKnoc('firepower', {
      name: 'web',
      url: 'https://intranet',
      backend: { Hostname: fake.hostname, Insecure: true, Username: USER, Password: PASSWORD },
      acl: { GroupUUID: DYNAMIC },
    }),
    device: {
      owned: () => fake.mappings(DYNAMIC) ?? [],
      foreign: () => fake.mappings(OTHER) ?? [],
      refuse: (ip) => fake.refuseValue(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => fake.expireAccessTokens(),
      requestCount: () => fake.requests.length,
      loginCount: () => fake.logins + fake.refreshes,
    },
    logLines,
    get secrets() {
      return [...secrets, ...fake.issuedTokens];
    },
    auth: 'session-login',
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});

// Legacy mode: a network group the admin shares with Postern. The admin's literals and object in it
// are what must never change; Postern's addresses are its `kk_` objects (the placeholder is not one).
describeDriverContract('firepower (network group)', async () => {
  const fake = await FmcFake.start({ username: USER, password: PASSWORD, tls });
  const office = fake.addAddressObject('office-net', 'Network', '10.99.0.0/16');
  fake.addNetworkGroup(GROUP, 'postern-legacy', ['198.51.100.200'], ['ftd-1'], [office]);
  const { options, logLines } = contractDriverOptions();
  const driver = new FirepowerDriver(options);
  const secrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64')];
  const members = () => fake.groupObjects(GROUP) ?? [];
  return {
    driver,
    knoc: contractKnoc('firepower', {
      name: 'legacy',
      url: 'https://intranet',
      backend: { Hostname: fake.hostname, Insecure: true, Username: USER, Password: PASSWORD },
      acl: { GroupUUID: GROUP },
    }),
    device: {
      owned: () =>
        members()
          .filter((o) => o.name.startsWith('kk_') && o.name !== 'kk_placeholder')
          .map((o) => o.value),
      foreign: () => [
        ...(fake.groupValues(GROUP) ?? []),
        ...members()
          .filter((o) => !o.name.startsWith('kk_'))
          .map((o) => `${o.name}=${o.value}`),
      ],
      refuse: (ip) => fake.refuseValue(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => fake.expireAccessTokens(),
      requestCount: () => fake.requests.length,
      loginCount: () => fake.logins + fake.refreshes,
      groupOfPosternOnly: () => fake.addNetworkGroup(GROUP, 'postern-legacy', [], ['ftd-1']),
      impostor: (ip, { inGroup }) => {
        const id = fake.addAddressObject(`kk_${ip}`, 'Network', '0.0.0.0/0');
        if (inGroup) fake.addToGroup(GROUP, id);
      },
    },
    logLines,
    get secrets() {
      return [...secrets, ...fake.issuedTokens];
    },
    auth: 'session-login',
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
