import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AzureNsgFake } from './azure-nsg-fake.js';

const SUB = 'sub-1';
const NSG = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Network/networkSecurityGroups/nsg`;
const V = '?api-version=2024-05-01';

let fake: AzureNsgFake;
beforeEach(async () => {
  fake = await AzureNsgFake.start({
    tenantId: 'tenant',
    clientId: 'app',
    clientSecret: 's3cret',
    subscriptions: [SUB],
  });
  fake.addNsg(SUB, 'rg', 'nsg');
});
afterEach(async () => {
  await fake.close();
});

async function token(secret = 's3cret') {
  const response = await fetch(`${fake.url}/tenant/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'app',
      client_secret: secret,
      scope: 'https://management.azure.com/.default',
    }).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function arm(method: string, path: string, accessToken: string, body?: unknown) {
  const response = await fetch(path.startsWith('http') ? path : `${fake.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
  };
}

const rule = (priority: number, prefix = '192.0.2.7/32') => ({
  properties: {
    protocol: 'Tcp',
    sourceAddressPrefix: prefix,
    sourcePortRange: '*',
    destinationAddressPrefix: '*',
    destinationPortRange: '443',
    access: 'Allow',
    priority,
    direction: 'Inbound',
  },
});

describe('the Azure fake (contract as documented in VENDORS.md 1.8 and the ARM examples)', () => {
  it('issues tokens for the client credentials and refuses a wrong secret with AADSTS7000215', async () => {
    const good = await token();
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ token_type: 'Bearer', expires_in: 3599 });
    const bad = await token('wrong');
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ error: 'invalid_client' });
    expect(String(bad.body.error_description)).toContain('AADSTS7000215');
  });

  it('PUT answers 201 with Azure-AsyncOperation; the operation runs, then succeeds; the rule follows', async () => {
    const access = String((await token()).body.access_token);
    const put = await arm('PUT', `${NSG}/securityRules/r1${V}`, access, rule(3000));
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ name: 'r1', properties: { provisioningState: 'Updating' } });
    const operation = put.headers.get('azure-asyncoperation') ?? '';
    expect(operation).toContain('/providers/Microsoft.Network/locations/westeurope/operations/');
    // A second write to the same NSG while the first runs is refused as Azure does.
    const busy = await arm('PUT', `${NSG}/securityRules/r2${V}`, access, rule(3001, '192.0.2.8/32'));
    expect(busy.status).toBe(429);
    expect(busy.headers.get('retry-after')).toBe('0');
    expect(busy.body).toMatchObject({ error: { code: 'RetryableErrorDueToAnotherOperation' } });
    expect((await arm('GET', operation, access)).body).toEqual({ status: 'InProgress' });
    expect((await arm('GET', operation, access)).body).toEqual({ status: 'Succeeded' });
    expect((await arm('GET', `${NSG}/securityRules/r1${V}`, access)).body).toMatchObject({
      properties: { provisioningState: 'Succeeded', sourceAddressPrefix: '192.0.2.7/32' },
    });
    // The same PUT again replaces: 200.
    expect((await arm('PUT', `${NSG}/securityRules/r1${V}`, access, rule(3000))).status).toBe(200);
  });

  it('refuses a priority taken in the same direction, and one outside 100–4096', async () => {
    fake.options.asyncPolls = 0;
    const access = String((await token()).body.access_token);
    expect((await arm('PUT', `${NSG}/securityRules/r1${V}`, access, rule(3000))).status).toBe(201);
    const clash = await arm('PUT', `${NSG}/securityRules/r2${V}`, access, rule(3000, '192.0.2.9/32'));
    expect(clash.status).toBe(400);
    expect(clash.body).toMatchObject({ error: { code: 'SecurityRuleConflict' } });
    expect((clash.body as { error: { message: string } }).error.message).toBe(
      'Security rule r1 conflicts with rule r2. Rules cannot have the same Priority and Direction. To learn more, see aka.ms/nsgrules.',
    );
    expect((await arm('PUT', `${NSG}/securityRules/r3${V}`, access, rule(99))).status).toBe(400);
  });

  it('lets a test take a priority between a listing and a write (onRulePut, putForeignRule)', async () => {
    fake.options.asyncPolls = 0;
    const access = String((await token()).body.access_token);
    const seen: unknown[] = [];
    fake.onRulePut = (put) => {
      seen.push([put.rule, put.priority, put.direction]);
      fake.putForeignRule(put.subscription, put.resourceGroup, put.nsg, {
        name: 'portal-rule',
        properties: { priority: Number(put.priority), direction: 'Inbound', provisioningState: 'Succeeded' },
      });
    };
    const refused = await arm('PUT', `${NSG}/securityRules/r1${V}`, access, rule(3000));
    expect([refused.status, seen]).toEqual([400, [['r1', 3000, 'Inbound']]]);
    expect(refused.body).toMatchObject({ error: { code: 'SecurityRuleConflict' } });
  });

  it('DELETE answers 202 with a Location that answers 202 then 204; absent rules 404 to GET and 204 to DELETE', async () => {
    fake.options.asyncPolls = 0;
    const access = String((await token()).body.access_token);
    await arm('PUT', `${NSG}/securityRules/r1${V}`, access, rule(3000));
    fake.options.asyncPolls = 1;
    const deleted = await arm('DELETE', `${NSG}/securityRules/r1${V}`, access);
    expect(deleted.status).toBe(202);
    const location = deleted.headers.get('location') ?? '';
    expect((await arm('GET', location, access)).status).toBe(202);
    expect((await arm('GET', location, access)).status).toBe(204);
    expect((await arm('GET', `${NSG}/securityRules/r1${V}`, access)).status).toBe(404);
    expect((await arm('DELETE', `${NSG}/securityRules/r1${V}`, access)).status).toBe(204);
  });

  it('answers 401 ExpiredAuthenticationToken once tokens expire, 429 with Retry-After when throttled, 404 for an unknown NSG', async () => {
    const access = String((await token()).body.access_token);
    fake.throttle(1, '2');
    const throttled = await arm('GET', `${NSG}/securityRules${V}`, access);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('2');
    expect((await arm('GET', `${NSG}/securityRules${V}`, access)).body).toEqual({ value: [] });
    expect((await arm('GET', `${NSG.replace('/nsg', '/other')}${V}`, access)).body).toMatchObject({
      error: { code: 'ResourceNotFound' },
    });
    fake.expireTokens();
    const expired = await arm('GET', `${NSG}/securityRules${V}`, access);
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ error: { code: 'ExpiredAuthenticationToken' } });
    expect((await arm('GET', `/subscriptions${V.replace('2024-05-01', '2022-12-01')}`, 'made-up')).status).toBe(401);
  });
});
