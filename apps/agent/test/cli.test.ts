import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, onTestFinished } from 'vitest';
import { POSTERN_VERSION } from '@postern/protocol';
import { SETTINGS, SETTING_KEYS } from '../src/config/settings.js';
import { waitFor } from '@postern/test-support';
import { agentEnv, runAgentProcess, startAgentProcess } from './support/agent-process.js';

const TOKEN = 'tok_cli_8d1e5f0a3c7b9e2d4f6a';

/** A private directory with a valid config file and token file, removed when the test ends. */
function givenValidConfig() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'postern-agent-cli-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const tokenFile = path.join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`);
  chmodSync(tokenFile, 0o600);
  const configFile = path.join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      serverUrl: 'https://postern.example.com',
      tokenFile,
      stateFile: path.join(dir, 'state/state.json'),
    }),
  );
  /** The environment of an agent reading this config file, plus `extra`. */
  const env = (extra: Record<string, string> = {}) => agentEnv({ POSTERN_AGENT_CONFIG: configFile, ...extra });
  return { dir, tokenFile, configFile, env };
}

// Each test starts a Node process: the agent, bundled once per test file (see startSourceCommand),
// about a quarter of a second of CPU to start. Every case is an invocation of its own. They run one
// at a time: on a small machine, running them at once only makes each slower (measured: no faster
// in all, and more CPU).
describe('postern-agent command line', { timeout: 30_000 }, () => {
  it.for(['--version', '-v'])('prints the version for %s', async (flag, { expect }) => {
    const result = await runAgentProcess([flag]);

    expect(result).toMatchObject({ code: 0, stdout: `${POSTERN_VERSION}\n`, stderr: '' });
  });

  it('lists the commands and every setting with its environment variable in --help', async ({ expect }) => {
    const result = await runAgentProcess(['--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s+run\s/m);
    expect(result.stdout).toMatch(/^\s+check-config\s/m);
    for (const key of SETTING_KEYS) expect(result.stdout).toContain(SETTINGS[key].env);
    expect(result.stdout).toContain('/var/lib/postern-agent/state.json');
    expect(result.stdout).toContain('There is no --token flag');
  });

  it.for(['run', 'check-config'])('lists the settings in %s --help', async (command, { expect }) => {
    const result = await runAgentProcess([command, '--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Usage: postern-agent ${command}`);
    expect(result.stdout).toContain('--config <path>');
    expect(result.stdout).toContain('POSTERN_AGENT_HEARTBEAT_SECONDS');
  });

  type Given = ReturnType<typeof givenValidConfig>;
  it.for([
    {
      name: 'a bad server URL in the environment (check-config)',
      args: ['check-config'],
      arrange: (given: Given) => given.env({ POSTERN_AGENT_SERVER_URL: 'ftp://x' }),
      line: () => 'POSTERN_AGENT_SERVER_URL: must be an https:// or http:// URL (got "ftp://x")',
    },
    {
      name: 'a bad server URL in the environment (run, the default command)',
      args: [],
      arrange: (given: Given) => given.env({ POSTERN_AGENT_SERVER_URL: 'ftp://x' }),
      line: () => 'POSTERN_AGENT_SERVER_URL: must be an https:// or http:// URL (got "ftp://x")',
    },
    {
      name: 'a bad flag',
      args: ['run', '--log-level', 'loud'],
      arrange: (given: Given) => given.env(),
      line: () => '--log-level: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    },
    {
      name: 'an unknown key in the config file',
      args: ['check-config'],
      arrange: (given: Given) => {
        writeFileSync(given.configFile, JSON.stringify({ serverURL: 'https://postern.example.com' }));
        return given.env();
      },
      line: (given: Given) => `${given.configFile}: unknown setting "serverURL"`,
    },
    {
      name: 'a token file others can read',
      args: ['check-config'],
      arrange: (given: Given) => {
        chmodSync(given.tokenFile, 0o644);
        return given.env();
      },
      line: ({ configFile, tokenFile }: Given) =>
        `${configFile}: tokenFile: ${tokenFile} is readable by group or others (mode 644); run chmod 600 ${tokenFile}`,
    },
    {
      name: 'a key file that holds no key (run)',
      args: ['run'],
      arrange: (given: Given) => {
        mkdirSync(path.join(given.dir, 'state'), { mode: 0o700 });
        writeFileSync(path.join(given.dir, 'state/agent-key.pem'), 'not a key\n', { mode: 0o600 });
        return given.env();
      },
      line: ({ dir }: Given) =>
        `POSTERN_AGENT_KEY_FILE: ${path.join(dir, 'state/agent-key.pem')} holds no Ed25519 private key in PEM; restore it from a backup, or remove it and have an admin rotate the agent token (the agent then enrols a new key)`,
    },
    {
      name: 'a key file others can read (run)',
      args: ['run'],
      arrange: (given: Given) => {
        const keyFile = path.join(given.dir, 'agent.pem');
        writeFileSync(keyFile, 'not a key\n', { mode: 0o644 });
        return given.env({ POSTERN_AGENT_KEY_FILE: keyFile });
      },
      line: ({ dir }: Given) =>
        `POSTERN_AGENT_KEY_FILE: ${path.join(dir, 'agent.pem')} is readable by group or others (mode 644); run chmod 600 ${path.join(dir, 'agent.pem')}`,
    },
  ])('exits 2 with one stderr line naming the setting for $name', async ({ args, arrange, line }, { expect }) => {
    const given = givenValidConfig();
    const result = await runAgentProcess(args, arrange(given));

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`postern-agent: ${line(given)}\n`);
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.stdout).toBe('');
  });

  it('prints the effective configuration as JSON with the token shown as "[set]"', async ({ expect }) => {
    const given = givenValidConfig();
    const result = await runAgentProcess(['check-config'], given.env({ POSTERN_AGENT_HEARTBEAT_SECONDS: '45' }));

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toContain(TOKEN);
    expect(JSON.parse(result.stdout)).toMatchObject({
      configFile: given.configFile,
      serverUrl: 'https://postern.example.com',
      connectUrl: 'wss://postern.example.com/api/agent/v1/connect',
      token: '[set]',
      tokenFile: given.tokenFile,
      heartbeatSeconds: 45,
    });
  });

  it.for(['SIGTERM', 'SIGINT'] as const)(
    'keeps running until %s, then logs "stopping" and exits 0',
    async (signal, { expect }) => {
      const agent = startAgentProcess(['run'], givenValidConfig().env());

      await waitFor(() => agent.stdout().includes('"msg":"postern-agent starting"'), 'the start log line');
      expect(agent.child.exitCode).toBeNull();
      const pid = agent.child.pid;
      if (pid === undefined) throw new Error('the agent process has no pid');
      process.kill(pid, signal);
      const result = await agent.finished;

      expect(result).toMatchObject({ code: 0, signal: null, stderr: '' });
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; config?: { token: string } });
      // Between the two, the agent may log that it cannot reach the (unresolvable) server.
      expect(lines[0]?.msg).toBe('postern-agent starting');
      expect(lines.at(-1)?.msg).toBe('stopping');
      expect(lines[0]?.config?.token).toBe('[set]');
      expect(result.stdout).not.toContain(TOKEN);
    },
  );
});
