import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, onTestFinished } from 'vitest';
import { AGENT_PROTOCOL_VERSION, POSTERN_VERSION } from '@postern/protocol';
import { FakePosternServer } from '../src/test-support/fake-postern-server.js';
import { testEntry, testKnoc } from '../src/test-support/runtime-fixtures.js';
import type { StateFileContent } from '../src/runtime/state-file.js';
import { agentEnv, startAgentProcess } from './support/agent-process.js';

const TOKEN = 'tok_run_3b7e9d1f5a2c8e4b6d0f';

// The real `postern-agent run` process, from source, against a fake server on 127.0.0.1.
describe('postern-agent run', { timeout: 30_000 }, () => {
  it('connects with its token, applies a state through the real drivers, and on SIGTERM closes with 1000 and keeps its state file', async ({
    expect,
  }) => {
    const server = await FakePosternServer.start();
    onTestFinished(() => server.stop());
    const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-run-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const tokenFile = path.join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`);
    chmodSync(tokenFile, 0o600);
    const stateFile = path.join(dir, 'state/state.json');

    const agent = startAgentProcess(
      ['run'],
      agentEnv({
        POSTERN_AGENT_SERVER_URL: server.serverUrl,
        POSTERN_AGENT_TOKEN_FILE: tokenFile,
        POSTERN_AGENT_STATE_FILE: stateFile,
        // ipset may change no set: the driver refuses without running anything on this host.
        POSTERN_AGENT_IPSET_ALLOWED_SETS: '',
      }),
    );
    onTestFinished(async () => {
      await agent.stop();
    });
    const connection = await server.waitForConnections(1);

    expect(connection.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // Its first run made the key beside the state file and proved it over the server's challenge.
    expect(connection.proofValid).toBe(true);
    expect(statSync(path.join(dir, 'state/agent-key.pem')).mode & 0o777).toBe(0o600);
    expect(connection.messages[0]).toMatchObject({
      type: 'hello',
      version: AGENT_PROTOCOL_VERSION,
      agentVersion: POSTERN_VERSION,
      generation: 0,
      applied: [],
    });
    server.sendState(1, [testKnoc('acl-a')], [testEntry('acl-a', '10.0.0.1')]);
    const result = await server.result(1);
    expect(result.results).toEqual([
      expect.objectContaining({ aclId: 'acl-a', ip: '10.0.0.1', action: 'add', ok: false }),
    ]);

    const finished = await agent.stop();

    expect(finished).toMatchObject({ code: 0, signal: null, stderr: '' });
    expect(connection.closeCode).toBe(1000);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as StateFileContent).stateGeneration).toBe(1);
    expect(finished.stdout).not.toContain(TOKEN);
  });
});
