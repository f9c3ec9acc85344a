import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_PROTOCOL_VERSION, AgentCloseCodes } from '@postern/protocol';
import { waitFor } from '@postern/test-support';
import { VALID_TOKEN } from '../test-support/config-fixture.js';
import { FakeDriver } from '../test-support/fake-driver.js';
import { ManualClock } from '../test-support/manual-clock.js';
import { testEntry, testKnoc } from '../test-support/runtime-fixtures.js';
import { runtimeHarness, storedEntry, writeState } from '../test-support/runtime-harness.js';
import type { StateFileContent } from './state-file.js';

const A = testKnoc('acl-a');

const setup = runtimeHarness();

describe('agent runtime: expiry and the state file', () => {
  it('removes an entry at its expiry while the server is unreachable, and reports expiries while connected', async () => {
    const t = await setup();
    const clock = new ManualClock();
    const runtime = await t.start({ clock });
    await t.server.waitForConnections(1);
    t.server.sendState(2, [A], [testEntry('acl-a', '10.0.0.1', 60), testEntry('acl-a', '10.0.0.2', 600)]);
    await t.server.result(2);
    t.server.refuseWith = 503;
    t.server.closeAll(1012);
    await waitFor(() => !runtime.isConnected(), 'the disconnect');

    clock.advance(60_000);
    await runtime.idle();

    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.2']);
    t.server.refuseWith = null;
    const again = await t.server.waitForConnections(2);
    expect(again.messages[0]).toMatchObject({ applied: [{ ip: '10.0.0.2', ttlSeconds: 540 }] });
    clock.advance(540_000);
    const expiryResult = await t.server.result(2, again);
    expect(expiryResult.results).toEqual([{ aclId: 'acl-a', ip: '10.0.0.2', action: 'remove', ok: true, error: '' }]);
  });

  it('puts back a grant the device lost on its drift check period, and tells the server', async () => {
    const t = await setup();
    await t.start({ driftCheckSeconds: 0.05 });
    await t.server.waitForConnections(1);
    t.server.sendState(2, [A], [testEntry('acl-a', '10.0.0.1', 600)]);
    await t.server.result(2);

    t.driver.device.get('acl-a')?.clear();
    await waitFor(() => t.server.results().length >= 2, 'the drift repair result');
    expect(t.server.results()[1]?.results).toEqual([
      { aclId: 'acl-a', ip: '10.0.0.1', action: 'add', ok: true, error: '' },
    ]);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.1']);
  });

  it('retries a grant that failed on a passing device error and tells the server once it is applied', async () => {
    const t = await setup();
    const clock = new ManualClock();
    const runtime = await t.start({ clock, applyRetry: { random: () => 1 } });
    await t.server.waitForConnections(1);
    let down = true;
    t.driver.fail = (action) => (action === 'apply' && down ? 'ipset: the device is busy' : null);
    t.server.sendState(2, [A], [testEntry('acl-a', '10.0.0.1', 600)]);
    expect((await t.server.result(2)).results).toEqual([
      { aclId: 'acl-a', ip: '10.0.0.1', action: 'add', ok: false, error: 'ipset: the device is busy' },
    ]);

    down = false;
    clock.advance(2_000);
    await waitFor(() => t.server.results().length >= 2, 'the retry result');
    expect(t.server.results()[1]?.results).toEqual([
      { aclId: 'acl-a', ip: '10.0.0.1', action: 'add', ok: true, error: '' },
    ]);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.1']);
    await runtime.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('restores exactly the unexpired entries with their remaining time after a restart, before any connection', async () => {
    const t = await setup();
    const clock = new ManualClock();
    const first = await t.start({ clock });
    await t.server.waitForConnections(1);
    t.server.sendState(5, [A], [testEntry('acl-a', '10.0.0.1', 100), testEntry('acl-a', '10.0.0.2', 30)]);
    await t.server.result(5);
    clock.advance(10_000);
    await first.stop();
    expect(t.server.latest.closeCode).toBe(1000);

    // A reboot: the device is empty, the agent was down for 25 s, and the server is unreachable.
    t.server.refuseWith = 503;
    clock.jumpWall(25_000);
    const rebooted = new FakeDriver('ipset');
    const second = await t.start({ clock, drivers: new Map([['ipset', rebooted]]) });

    expect(rebooted.ips('acl-a')).toEqual(['10.0.0.1']);
    expect(rebooted.device.get('acl-a')?.get('10.0.0.1')?.ttlSeconds).toBe(65);
    const snapshot = second.snapshot();
    expect(snapshot.generation).toBe(5);
    expect(snapshot.entries.map((entry) => [entry.ip, entry.remainingMs])).toEqual([['10.0.0.1', 65_000]]);
    expect(rebooted.callsOf('remove').map((call) => call.ips)).toEqual([['10.0.0.2']]);
    clock.advance(65_000);
    await second.idle();
    expect(rebooted.ips('acl-a')).toEqual([]);
  });

  it('writes the state file on stop with mode 600 and without the token, and leaves entries on the device', async () => {
    const t = await setup();
    const runtime = await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    await t.server.result(1);

    await runtime.stop();

    const content = JSON.parse(readFileSync(t.config.stateFile, 'utf8')) as StateFileContent;
    expect(content.entries.map((entry) => entry.ip)).toEqual(['10.0.0.1']);
    expect(readFileSync(t.config.stateFile, 'utf8')).not.toContain(VALID_TOKEN);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.1']);
    expect(t.driver.closed).toBe(true);
    expect(t.server.latest.closeCode).toBe(1000);
  });

  it('moves a corrupt state file aside and starts empty', async () => {
    const t = await setup();
    t.fixture.mkdir('state');
    writeFileSync(t.config.stateFile, '{"formatVersion": 1, "entr');

    await t.start();
    const connection = await t.server.waitForConnections(1);

    expect(connection.messages[0]).toMatchObject({ type: 'hello', generation: 0, applied: [] });
    const names = readdirSync(path.dirname(t.config.stateFile));
    expect(names.filter((name) => name.startsWith('state.json.corrupt-'))).toHaveLength(1);
    expect(t.log.find('state file is corrupt')).toHaveLength(1);
  });

  it('ignores a state older than the state file’s (a server restored from a backup)', async () => {
    const t = await setup();
    t.fixture.mkdir('state');
    const clock = new ManualClock();
    const entries = [storedEntry('acl-a', '10.0.0.1', clock.wallMs() + 60_000, 40)];
    writeState(t.config.stateFile, { generation: 40, stateGeneration: 40, knocs: [A], entries });
    const runtime = await t.start({ clock });
    await t.server.waitForConnections(1);

    t.server.sendState(12, [A], [testEntry('acl-a', '10.0.0.9')]);
    const result = await t.server.result(12);

    expect(result.results).toEqual([]);
    expect(runtime.snapshot().entries.map((entry) => entry.ip)).toEqual(['10.0.0.1']);
    expect(t.driver.ips('acl-a')).toEqual(['10.0.0.1']);
  });
});

describe('agent runtime: secrets', () => {
  it('never logs the token or a knoc’s secrets, whatever happens', async () => {
    const t = await setup();
    const secretKnoc = testKnoc('acl-v', {
      backend: { Url: 'https://fw.example.com', Bearer: 'BEARER-SECRET-4711' },
      acl: { EnvVars: [{ Name: 'API_PASSWORD', Value: 'ENV-SECRET-0815', Sensitive: true }] },
    });
    t.driver.fail = (action) => (action === 'remove' ? 'device said no' : null);
    const runtime = await t.start({ heartbeatSeconds: 0.05 });
    await t.server.waitForConnections(1);

    t.server.sendState(
      1,
      [secretKnoc, testKnoc('acl-p', { backendType: 'haproxy', backend: { Password: 'PROXY-SECRET' } })],
      [testEntry('acl-v', '10.0.0.1'), testEntry('acl-p', '10.0.0.2')],
    );
    await t.server.result(1);
    t.server.send({
      type: 'state',
      version: AGENT_PROTOCOL_VERSION,
      generation: 2,
      knocs: [{ ...secretKnoc, backendType: 'no-such-type', backend: { Bearer: 'BEARER-SECRET-4711' } }],
      entries: 'ENV-SECRET-0815',
    });
    t.server.sendApply(3, [], [{ aclId: 'acl-v', ip: '10.0.0.1' }]);
    await t.server.result(3);
    t.server.closeAll(AgentCloseCodes.unauthorised);
    await waitFor(() => !runtime.isConnected(), 'the disconnect');
    await runtime.stop();

    const logged = t.log.text();
    expect(t.log.find('ignoring an invalid message')).toHaveLength(1);
    for (const secret of [VALID_TOKEN, 'BEARER-SECRET-4711', 'ENV-SECRET-0815', 'PROXY-SECRET']) {
      expect(logged).not.toContain(secret);
    }
  });

  it('keeps the state file private: mode 600 in a directory of mode 700', async () => {
    const t = await setup();
    const runtime = await t.start();
    await t.server.waitForConnections(1);
    t.server.sendState(1, [A], [testEntry('acl-a', '10.0.0.1')]);
    await t.server.result(1);
    await runtime.stop();

    expect(existsSync(t.config.stateFile)).toBe(true);
    expect(statSync(t.config.stateFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(t.config.stateFile)).mode & 0o777).toBe(0o700);
  });
});
