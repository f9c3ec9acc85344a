import { describe, expect, it } from 'vitest';
import { FakeDriver } from '../test-support/fake-driver.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { runtimeHarness } from '../test-support/runtime-harness.js';
import { readBack } from './read-back.js';

const A = testKnoc('acl-a');
const setup = runtimeHarness();

/** A knoc test's entry: the server asks for the device to be read back after the apply. */
const verified = (ip: string) => ({ ...testEntry('acl-a', ip), verify: true as const });

describe('read-back of a knoc test’s entry', () => {
  it('reports what the device holds after applying an entry sent with verify, and nothing for others', async () => {
    const t = await setup();
    await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(2, [A], []);
    await t.server.result(2);
    t.driver.loses = (ip) => ip === '192.0.2.2';
    const before = t.driver.calls.length;

    t.server.sendApply(3, [verified('192.0.2.1'), verified('192.0.2.2'), testEntry('acl-a', '192.0.2.3')], []);

    expect((await t.server.result(3)).results).toEqual([
      { aclId: 'acl-a', ip: '192.0.2.1', action: 'add', ok: true, error: '', readBack: 'held' },
      { aclId: 'acl-a', ip: '192.0.2.2', action: 'add', ok: true, error: '', readBack: 'absent' },
      { aclId: 'acl-a', ip: '192.0.2.3', action: 'add', ok: true, error: '' },
    ]);
    // One listing for the batch, through the driver's read path, after the write.
    expect(t.driver.calls.slice(before).map((call) => call.action)).toEqual(['apply', 'list']);
  });

  it('lists nothing for an apply without verify', async () => {
    const t = await setup();
    await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(2, [A], []);
    await t.server.result(2);
    const before = t.driver.calls.length;
    t.server.sendApply(3, [testEntry('acl-a', '192.0.2.1')], []);
    await t.server.result(3);
    expect(t.driver.calls.slice(before).map((call) => call.action)).toEqual(['apply']);
  });

  it('reads nothing back when the write failed: the result is the device’s error', async () => {
    const t = await setup();
    await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(2, [A], []);
    await t.server.result(2);
    t.driver.fail = () => 'ipset: the set does not exist';
    t.server.sendApply(3, [verified('192.0.2.1')], []);
    expect((await t.server.result(3)).results).toEqual([
      { aclId: 'acl-a', ip: '192.0.2.1', action: 'add', ok: false, error: 'ipset: the set does not exist' },
    ]);
  });
});

describe('readBack', () => {
  const drivers = (driver: FakeDriver) => new Map([[driver.type, driver]]);

  it('counts an address the device lets through by others’ rules as held', async () => {
    const driver = new FakeDriver();
    driver.othersRules.set('acl-a', ['2001:db8::1']);
    expect(await readBack(drivers(driver), A, ['2001:0db8:0:0::1'])).toEqual(
      new Map([['2001:0db8:0:0::1', { readBack: 'held' }]]),
    );
  });

  it('says a device that cannot be read is unreadable, without listing it', async () => {
    const driver = new FakeDriver();
    driver.readsBack = () => false;
    const found = await readBack(drivers(driver), A, ['192.0.2.1']);
    expect(found.get('192.0.2.1')).toEqual({
      readBack: 'unreadable',
      readBackDetail: 'ipset backends cannot be read back: nothing on them can be listed',
    });
    expect(driver.calls).toEqual([]);
  });

  it('says a listing that fails is unreadable, with the device’s error', async () => {
    const driver = new FakeDriver();
    driver.unavailable = 'connect ECONNREFUSED /run/haproxy.sock';
    expect((await readBack(drivers(driver), A, ['192.0.2.1'])).get('192.0.2.1')).toEqual({
      readBack: 'unreadable',
      readBackDetail: 'reading the ipset device back failed: connect ECONNREFUSED /run/haproxy.sock',
    });
  });

  it('says an agent without the backend’s driver cannot read it', async () => {
    expect((await readBack(new Map(), A, ['192.0.2.1'])).get('192.0.2.1')).toEqual({
      readBack: 'unreadable',
      readBackDetail: 'this agent cannot drive ipset backends',
    });
  });
});
