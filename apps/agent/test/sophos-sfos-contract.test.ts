import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { SophosSfosFake } from './fakes/sophos-sfos-fake.js';
import { selfSignedCertificate } from '@postern/test-support';
import { isSfosPlaceholder } from '../src/drivers/vendors/sophossfos/sophossfos-client.js';
import { SophosSfosDriver } from '../src/drivers/vendors/sophossfos/sophossfos-driver.js';

// An XML-special character in the password: it must be escaped in the request and never shown.
const PASSWORD = 'sfos-contract-pw<&>7c1e';
const tls = selfSignedCertificate();

describeDriverContract('sophossfos', async () => {
  const fake = await SophosSfosFake.start({ username: 'postern-api', password: PASSWORD, tls });
  fake.addHost('office-lan', '192.0.2.200');
  fake.addGroup('postern-web', 'IPv4', ['office-lan']);
  fake.addGroup('postern-web-v6', 'IPv6');
  const { options, logLines } = contractDriverOptions();
  const driver = new SophosSfosDriver(options);
  const names = () => [...(fake.hosts('postern-web') ?? []), ...(fake.hosts('postern-web-v6') ?? [])];
  return {
    driver,
    knoc: contractKnoc('sophossfos', {
      name: 'web',
      url: 'https://intranet',
      backend: { Hostname: fake.hostname, Insecure: true, Username: 'postern-api', Password: PASSWORD },
      acl: { GroupName: 'postern-web', GroupNameV6: 'postern-web-v6' },
    }),
    device: {
      // The placeholders carry the marker but stand for no address.
      owned: () =>
        names()
          .filter((name) => name.startsWith('kk_') && !isSfosPlaceholder(name))
          .map((name) => name.slice(3)),
      foreign: () => names().filter((name) => !name.startsWith('kk_')),
      refuse: (ip) => fake.refuseAddress(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => {
        fake.password = 'rotated-on-the-firewall';
      },
      requestCount: () => fake.requests.length,
      groupOfPosternOnly: () => {
        fake.addGroup('postern-web', 'IPv4', []);
        fake.addGroup('postern-web-v6', 'IPv6');
        fake.emptyHostList('refuse');
      },
      impostor: (ip, { inGroup }) => {
        fake.addHost(`kk_${ip}`, '0.0.0.0', { subnet: '0.0.0.0' });
        if (inGroup) fake.group('postern-web')?.hosts.push(`kk_${ip}`);
      },
    },
    logLines,
    secrets: [PASSWORD, 'sfos-contract-pw&lt;&amp;&gt;7c1e'],
    auth: 'static-token',
    refusedCredential: /Authentication Failure/,
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
