import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import type BetterSqlite3 from 'better-sqlite3';
import { AGENT_PROTOCOL_VERSION, GrantStatus } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenUser } from '../test-support/factories.js';
import { givenAgent } from '../test-support/agent-factories.js';
import { givenIpsetKnocOfUser } from '../test-support/knoc-factories.js';
import { FakeAgent } from '../test-support/fake-agent.js';
import { givenUserSession } from '../test-support/sessions.js';
import { givenLicence, TEST_LICENCE_KEYS } from '../test-support/licence.js';
import { loadSqliteDriver } from '../store/sqlite-driver.js';

const ADDRESS = '192.0.2.10';

describe('agent traffic while another process holds the SQLite write lock', () => {
  const logLines: { level: number; msg: string }[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => logLines.push(JSON.parse(line) as { level: number; msg: string }) },
  );
  const t = useTestApp('sqlite', { config: { licencePublicKeys: TEST_LICENCE_KEYS }, logger, listen: true });
  let agent: FakeAgent;
  let aclId: string;
  let agentId: string;
  let outside: BetterSqlite3.Database;

  beforeEach(async () => {
    logLines.length = 0;
    await givenLicence(t.ctx);
    const created = await givenAgent(t.ctx, { name: 'edge' });
    agentId = created.id;
    const user = await givenUser(t.ctx, { userName: 'alice' });
    aclId = (await givenIpsetKnocOfUser(t.ctx, created.id, user.id, { ClickToGrant: true })).id;
    agent = new FakeAgent(t.baseUrl, created.token);
    // The agent applies entries but reports nothing by itself: the test sends the result when it wants.
    agent.decide = () => null;
    await agent.connect();
    const cookie = await givenUserSession(t, user);
    const granted = await t.app.inject({
      method: 'POST',
      url: '/api/grant',
      headers: { cookie },
      remoteAddress: ADDRESS,
      payload: { ACLID: aclId, IPs: [] },
    });
    expect(granted.statusCode, granted.body).toBe(200);
    await agent.waitFor(() => agent.applies().some((apply) => apply.add.length > 0), 'the add');
    outside = new (loadSqliteDriver())(path.join(t.ctx.config.dataDir, 'postern.db'));
  });
  afterEach(async () => {
    if (outside.inTransaction) outside.exec('rollback');
    outside.close();
    await agent.disconnect();
  });

  const grantStatus = async () =>
    (
      await t.ctx.db
        .selectFrom('grants')
        .select('status')
        .where('aclId', '=', aclId)
        .where('ip', '=', ADDRESS)
        .executeTakeFirstOrThrow()
    ).status;
  const storeWarnings = () =>
    logLines
      .filter((line) => line.level === pino.levels.values.warn && line.msg.startsWith('store unavailable'))
      .map((line) => line.msg);

  it('records a result that arrived during the lock once it is released: the grant becomes Granted', async () => {
    expect(await grantStatus()).not.toBe(GrantStatus.Granted);
    outside.exec('begin exclusive');
    const [apply] = agent.applies().filter((message) => message.add.length > 0);
    agent.send({
      type: 'result',
      version: AGENT_PROTOCOL_VERSION,
      generation: apply?.generation,
      results: [{ aclId, ip: ADDRESS, action: 'add', ok: true, error: '' }],
    });

    // The first attempt has given up on the lock, once, and the result waits for another.
    await expect
      .poll(storeWarnings, { timeout: 5_000 })
      .toEqual(['store unavailable (locked by another process): recording agent results will be retried']);
    expect(await grantStatus()).not.toBe(GrantStatus.Granted);
    outside.exec('rollback');

    await expect.poll(grantStatus, { timeout: 10_000 }).toBe(GrantStatus.Granted);
    expect(storeWarnings()).toHaveLength(1);
  }, 20_000);

  it('sends a full state that fell due during the lock once it is released', async () => {
    const statesBefore = agent.states().length;
    outside.exec('begin exclusive');
    t.hub.agentsChanged([agentId]);

    await expect
      .poll(storeWarnings, { timeout: 5_000 })
      .toEqual(['store unavailable (locked by another process): sending changes to the agent will be retried']);
    expect(agent.states()).toHaveLength(statesBefore);
    outside.exec('rollback');

    await agent.waitFor(() => agent.states().length > statesBefore, 'the full state');
    expect(agent.states().at(-1)?.entries).toEqual([expect.objectContaining({ aclId, ip: ADDRESS })]);
  }, 20_000);
});
