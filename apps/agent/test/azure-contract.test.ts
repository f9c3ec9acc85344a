import { closeDriverAndFake, contractDriverOptions, contractKnoc, describeDriverContract } from './driver-contract.js';
import { AzureNsgFake } from './fakes/azure-nsg-fake.js';
import { canonicalAddress } from '../src/drivers/addresses.js';
import { AzureNsgDriver } from '../src/drivers/vendors/azure/azure-nsg-driver.js';

const SECRET = 'contract-client-secret~7f3a9c';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '11111111-2222-3333-4444-555555555555';
const SUBSCRIPTIONS = ['00000000-0000-0000-0000-00000000aaaa', '00000000-0000-0000-0000-00000000bbbb'];
const SUBSCRIPTION = SUBSCRIPTIONS[1] ?? '';

describeDriverContract('azure', async () => {
  const fake = await AzureNsgFake.start({
    tenantId: TENANT,
    clientId: CLIENT,
    clientSecret: SECRET,
    subscriptions: SUBSCRIPTIONS,
  });
  fake.addNsg(SUBSCRIPTION, 'rg-web', 'nsg-web', [
    {
      name: 'allow-ssh-office',
      properties: {
        priority: 100,
        direction: 'Inbound',
        access: 'Allow',
        protocol: 'Tcp',
        sourceAddressPrefix: '203.0.113.0/24',
        destinationAddressPrefix: '*',
        destinationPortRange: '22',
        provisioningState: 'Succeeded',
      },
    },
  ]);
  const { options, logLines } = contractDriverOptions();
  const driver = new AzureNsgDriver({
    ...options,
    authorityHost: fake.url,
    managementEndpoint: fake.url,
    pollIntervalMs: 1,
  });
  const rules = () => fake.rules(SUBSCRIPTION, 'rg-web', 'nsg-web') ?? [];
  const address = (rule: { properties: Record<string, unknown> }) =>
    canonicalAddress(String(rule.properties.sourceAddressPrefix));
  return {
    driver,
    knoc: contractKnoc('azure', {
      name: 'web',
      url: 'https://intranet',
      backend: { ClientId: CLIENT, ClientSecret: SECRET, TenantId: TENANT, NoCache: false },
      acl: { NsgDirection: 'Inbound', NsgName: 'nsg-web', NsgPort: 443, ResourceGroup: 'rg-web' },
    }),
    device: {
      owned: () =>
        rules()
          .filter((rule) => rule.name.startsWith('postern-'))
          .map(address),
      foreign: () =>
        rules()
          .filter((rule) => !rule.name.startsWith('postern-'))
          .map((rule) => rule.name),
      refuse: (ip) => fake.refusePrefix(ip),
      redirectTo: (url) => fake.redirectTo(url === null ? null : url.replace(/\/$/, '')),
      invalidateCredential: () => fake.expireTokens(),
      requestCount: () => fake.requests.length,
      loginCount: () => fake.tokensIssued,
    },
    logLines,
    secrets: [SECRET],
    auth: 'session-login',
    ipv6: true,
    close: closeDriverAndFake(driver, fake),
  };
});
