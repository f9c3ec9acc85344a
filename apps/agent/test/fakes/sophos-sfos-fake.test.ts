import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SophosSfosFake } from './sophos-sfos-fake.js';

let fake: SophosSfosFake;
beforeEach(async () => {
  fake = await SophosSfosFake.start({ username: 'api', password: 'good' });
  fake.addGroup('G');
});
afterEach(async () => {
  await fake.close();
});

async function call(operation: string, password = 'good') {
  const reqxml = `<Request><Login><Username>api</Username><Password>${password}</Password></Login>${operation}</Request>`;
  const response = await fetch(`${fake.url}/webconsole/APIController`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ reqxml }),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the Sophos SFOS fake (contract as documented in VENDORS.md 1.6)', () => {
  it('refuses wrong credentials and callers outside the allow list', async () => {
    expect((await call('<Get><IPHostGroup/></Get>', 'bad')).text).toContain(
      '<Login><status>Authentication Failure</status></Login>',
    );
    fake.denyCaller = true;
    expect((await call('<Get><IPHostGroup/></Get>')).text).toContain('<Status code="534">');
  });

  it('adds hosts (a repeat: already exists), replaces a host list, refuses removing a used host', async () => {
    const add =
      '<Set operation="add"><IPHost transactionid="7"><Name>kk_192.0.2.1</Name><IPFamily>IPv4</IPFamily><HostType>IP</HostType><IPAddress>192.0.2.1</IPAddress></IPHost></Set>';
    expect((await call(add)).text).toContain('<IPHost transactionid="7"><Status code="200">');
    expect((await call(add)).text).toMatch(/<Status code="502">[^<]*already exists/);
    const update =
      '<Set operation="update"><IPHostGroup><Name>G</Name><HostList><Host>kk_192.0.2.1</Host></HostList><IPFamily>IPv4</IPFamily></IPHostGroup></Set>';
    expect((await call(update)).text).toContain('<Status code="200">');
    expect(fake.hosts('G')).toEqual(['kk_192.0.2.1']);
    const get = await call(
      '<Get><IPHostGroup><Filter><key name="Name" criteria="=">G</key></Filter></IPHostGroup></Get>',
    );
    expect(get.text).toContain('<HostList><Host>kk_192.0.2.1</Host></HostList>');
    expect(
      (await call('<Get><IPHostGroup><Filter><key name="Name" criteria="=">H</key></Filter></IPHostGroup></Get>')).text,
    ).toContain('Number of records Zero.');
    expect((await call('<Remove><IPHost><Name>kk_192.0.2.1</Name></IPHost></Remove>')).text).toContain('code="541"');
  });

  it('an update replaces the whole HostList; an empty one empties the group, or is refused or ignored on request', async () => {
    fake.addHost('kk_192.0.2.1', '192.0.2.1');
    fake.addHost('kk_192.0.2.2', '192.0.2.2');
    const update = (...hosts: string[]) =>
      call(
        `<Set operation="update"><IPHostGroup transactionid="0"><Name>G</Name><Description>d</Description><HostList>${hosts.map((host) => `<Host>${host}</Host>`).join('')}</HostList><IPFamily>IPv4</IPFamily></IPHostGroup></Set>`,
      );
    await update('kk_192.0.2.1', 'kk_192.0.2.2');
    await update('kk_192.0.2.2');
    expect(fake.hosts('G')).toEqual(['kk_192.0.2.2']);
    fake.emptyHostList('refuse');
    expect((await update()).text).toContain('<Status code="500">');
    fake.emptyHostList('ignore');
    expect((await update()).text).toContain('<Status code="200">');
    expect(fake.hosts('G')).toEqual(['kk_192.0.2.2']);
    fake.emptyHostList('clear');
    expect((await update()).text).toContain('<Status code="200">');
    expect(fake.hosts('G')).toEqual([]);
  });

  it('throttles and redirects on request', async () => {
    fake.throttle(1);
    expect((await call('<Get><IPHostGroup/></Get>')).status).toBe(503);
    expect((await call('<Get><IPHostGroup/></Get>')).status).toBe(200);
    fake.redirectTo('http://192.0.2.1:4444');
    const moved = await call('<Get><IPHostGroup/></Get>');
    expect([moved.status, moved.headers.get('location')]).toEqual([
      302,
      'http://192.0.2.1:4444/webconsole/APIController',
    ]);
  });
});
