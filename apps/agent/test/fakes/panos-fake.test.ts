import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-server.js';
import { PanosFake } from './panos-fake.js';

const KEY = 'LUFRPT-fake-key==';
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function start(options: Partial<Parameters<typeof PanosFake.start>[0]> = {}) {
  const fake = await PanosFake.start({ key: KEY, ...options });
  closers.push(() => fake.close());
  const call = async (params: Record<string, string>, key: string | null = KEY) => {
    const response = await fetch(`${fake.url}/api/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(key === null ? {} : { 'x-pan-key': key }) },
      body: new URLSearchParams(params).toString(),
    });
    return { status: response.status, text: await response.text() };
  };
  return { fake, call };
}

const uid = (payload: string) =>
  `<uid-message><version>1.0</version><type>update</type><payload>${payload}</payload></uid-message>`;

describe('PAN-OS fake (contract fake, VENDORS.md 1.3)', () => {
  it('refuses a wrong or missing key with 403 Invalid Credential', async () => {
    const { call } = await start();
    for (const key of ['wrong', null]) {
      const answer = await call(
        { type: 'op', cmd: '<show><object><registered-ip><all/></registered-ip></object></show>' },
        key,
      );
      expect(answer.status).toBe(403);
      expect(answer.text).toContain('Invalid Credential');
    }
  });

  it('registers with a timeout, answers duplicates and absent unregisters per entry, and expires tags', async () => {
    let now = 1_000_000;
    const { fake, call } = await start({ now: () => now });
    fake.register('192.0.2.9', ['admin-tag']);
    const register = uid(
      '<register><entry ip="192.0.2.1"><tag><member timeout="60">kk-web</member></tag></entry></register>',
    );
    expect((await call({ type: 'user-id', cmd: register })).text).toMatch(/status="success"/);
    const again = await call({ type: 'user-id', cmd: register });
    expect(again.text).toMatch(
      /status="error".*<register><entry ip="192.0.2.1" message="tag kk-web already exists, ignore"\/>/,
    );
    expect(fake.registered('kk-web')).toEqual(['192.0.2.1']);
    const shown = await call({
      type: 'op',
      cmd: '<show><object><registered-ip><tag><entry name="kk-web"/></tag></registered-ip></object></show>',
    });
    expect(shown.text).toContain(
      '<entry ip="192.0.2.1" from_agent="0" persistent="1"><tag><member>kk-web</member></tag></entry><count>1</count>',
    );
    now += 61_000;
    expect(fake.registered('kk-web')).toEqual([]);
    const absent = await call({
      type: 'user-id',
      cmd: uid('<unregister><entry ip="192.0.2.1"><tag><member>kk-web</member></tag></entry></unregister>'),
    });
    expect(absent.text).toContain('message="tag kk-web does not exist, ignore unreg"');
    expect(fake.tagsOf('192.0.2.9')).toEqual(['admin-tag']);
  });

  it('maps users, keeps vsys and Panorama targets apart, and answers errors for unknown ones', async () => {
    const { fake, call } = await start({ vsys: ['vsys1', 'vsys2'], panoramaSerials: ['0079000001'] });
    const cmd = uid(
      '<login><entry name="corp\\ann" ip="192.0.2.5" timeout="10"/></login>' +
        '<register><entry ip="192.0.2.5"><tag><member>kk-a</member></tag></entry></register>',
    );
    expect((await call({ type: 'user-id', cmd, vsys: 'vsys2', target: '0079000001' })).text).toMatch(/success/);
    expect(fake.registered('kk-a', { vsys: 'vsys2', serial: '0079000001' })).toEqual(['192.0.2.5']);
    expect(fake.registered('kk-a', { vsys: 'vsys1', serial: '0079000001' })).toEqual([]);
    expect(fake.registered('kk-a', { vsys: 'vsys2' })).toEqual([]);
    expect(fake.login('192.0.2.5', { vsys: 'vsys2', serial: '0079000001' })?.user).toBe('corp\\ann');
    expect((await call({ type: 'user-id', cmd, target: '0000' })).text).toMatch(/status="error".*not connected/);
    expect((await call({ type: 'user-id', cmd, vsys: 'vsys9' })).text).toMatch(/status="error".*vsys9/);
    expect((await call({ type: 'user-id', cmd: '<uid-message><a></uid-message>' })).text).toMatch(/Malformed/);
  });

  it('records each list refresh, fetches the list source, and can refuse a refresh', async () => {
    const source: LoopbackServer = await startLoopbackServer((_req, res) => res.end('192.0.2.7\n# note\n10.0.0.0/8\n'));
    closers.push(() => source.close());
    const { fake, call } = await start();
    fake.addEdl('postern-allow', { sourceUrl: `${source.url}/list` });
    const refresh = (name: string) =>
      call({
        type: 'op',
        cmd: `<request><system><external-list><refresh><type><ip><name>${name}</name></ip></type></refresh></external-list></system></request>`,
      });
    expect((await refresh('postern-allow')).text).toMatch(/status="success"/);
    expect(fake.edlRefreshes('postern-allow')).toHaveLength(1);
    expect(fake.edlContent('postern-allow')).toEqual(['192.0.2.7', '10.0.0.0/8']);
    expect((await refresh('missing')).text).toMatch(/status="error".*missing does not exist/);
    fake.refuseRefresh('postern-allow', 'EDL refresh failed: certificate error');
    expect((await refresh('postern-allow')).text).toMatch(/certificate error/);
    expect(fake.edlRefreshes('postern-allow')).toHaveLength(2);
  });

  it('throttles and redirects on request', async () => {
    const { fake, call } = await start();
    const cmd = '<show><object><registered-ip><all/></registered-ip></object></show>';
    fake.throttle(1, 429, '2');
    const throttled = await call({ type: 'op', cmd });
    expect(throttled.status).toBe(429);
    expect((await call({ type: 'op', cmd })).status).toBe(200);
    fake.redirectTo('http://elsewhere.invalid');
    const redirected = await fetch(`${fake.url}/api/`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'x-pan-key': KEY },
    });
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe('http://elsewhere.invalid/api/');
  });
});
