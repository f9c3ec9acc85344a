import { existsSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConfigFixture, VALID_TOKEN, type ConfigFixture } from '../test-support/config-fixture.js';
import { ConfigError } from './config-error.js';
import { describeConfig } from './describe.js';

let f: ConfigFixture;
beforeEach(() => {
  f = createConfigFixture();
});
afterEach(() => {
  f.remove();
});

describe('defaults', () => {
  it('fills every optional setting with its documented default', () => {
    const { config } = f.load();

    expect(describeConfig(config)).toEqual({
      configFile: null,
      serverUrl: 'https://postern.example.com',
      connectUrl: 'wss://postern.example.com/api/agent/v1/connect',
      token: '[set]',
      tokenFile: null,
      stateFile: f.path('state/state.json'),
      keyFile: f.path('state/agent-key.pem'),
      caFile: null,
      insecureSkipVerify: false,
      scripts: { enabled: false, directory: '/etc/postern-agent/scripts', timeoutSeconds: 30 },
      ipset: { allowedSets: [], useSudo: false },
      nftables: { allowedSets: [], useSudo: false },
      haproxy: { socket: null },
      knocproxy: { tlsCertFile: null, tlsKeyFile: null },
      aws: { endpoint: null },
      azure: {
        authorityHost: 'https://login.microsoftonline.com',
        managementEndpoint: 'https://management.azure.com',
        priorityFrom: 3000,
        priorityTo: 3999,
      },
      heartbeatSeconds: 15,
      driftCheckSeconds: 300,
      metrics: { listen: 'off' },
      logLevel: 'info',
    });
  });

  it('defaults the state file to /var/lib/postern-agent/state.json', () => {
    let outcome: string;
    try {
      outcome = f.load({ env: { POSTERN_AGENT_STATE_FILE: undefined } }).config.stateFile;
    } catch (error) {
      // Off root, /var/lib may not be writable; the refusal then still names the default's directory.
      if (!(error instanceof ConfigError)) throw error;
      outcome = error.message;
    }
    expect(outcome).toContain('/var/lib/postern-agent');
  });
});

describe('precedence: config file < environment < flags', () => {
  const FILE_VALUES = {
    serverUrl: 'https://from-file.example.com',
    stateFile: 'file-state/state.json',
    logLevel: 'warn',
    heartbeatSeconds: 20,
  };

  it('takes values from the config file when nothing else sets them', () => {
    const { config } = f.load({
      env: { POSTERN_AGENT_SERVER_URL: undefined, POSTERN_AGENT_STATE_FILE: undefined },
      file: FILE_VALUES,
    });

    expect(config.serverUrl).toBe('https://from-file.example.com');
    expect(config.stateFile).toBe(f.path('file-state/state.json'));
    expect(config.logLevel).toBe('warn');
    expect(config.heartbeatSeconds).toBe(20);
  });

  it('lets the environment override the config file', () => {
    const { config } = f.load({
      env: {
        POSTERN_AGENT_SERVER_URL: 'https://from-env.example.com',
        POSTERN_AGENT_STATE_FILE: f.path('env-state/state.json'),
        POSTERN_AGENT_LOG_LEVEL: 'debug',
        POSTERN_AGENT_HEARTBEAT_SECONDS: '30',
      },
      file: FILE_VALUES,
    });

    expect(config.serverUrl).toBe('https://from-env.example.com');
    expect(config.stateFile).toBe(f.path('env-state/state.json'));
    expect(config.logLevel).toBe('debug');
    expect(config.heartbeatSeconds).toBe(30);
  });

  it('lets flags override the environment', () => {
    const { config } = f.load({
      env: {
        POSTERN_AGENT_SERVER_URL: 'https://from-env.example.com',
        POSTERN_AGENT_STATE_FILE: f.path('env-state/state.json'),
        POSTERN_AGENT_LOG_LEVEL: 'debug',
      },
      file: FILE_VALUES,
      flags: { serverUrl: 'https://from-flag.example.com', stateFile: 'flag-state/state.json', logLevel: 'error' },
    });

    expect(config.serverUrl).toBe('https://from-flag.example.com');
    expect(config.stateFile).toBe(f.path('flag-state/state.json'));
    expect(config.logLevel).toBe('error');
  });

  it('lets a token file from a flag override one from the environment and the file', () => {
    const fileToken = f.write('file-token', 'f'.repeat(24));
    const envToken = f.write('env-token', 'e'.repeat(24));
    const flagToken = f.write('flag-token', 'g'.repeat(24));
    const { config } = f.load({
      env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: envToken },
      file: { tokenFile: fileToken },
      flags: { tokenFile: flagToken },
    });

    expect(config.tokenFile).toBe(flagToken);
    expect(config.token.reveal()).toBe('g'.repeat(24));
  });

  it('treats an empty environment variable as unset', () => {
    const { config } = f.load({ env: { POSTERN_AGENT_LOG_LEVEL: '' }, file: { logLevel: 'warn' } });

    expect(config.logLevel).toBe('warn');
  });
});

describe('the config file', () => {
  it('is named by --config before POSTERN_AGENT_CONFIG', () => {
    const viaFlag = f.write('flag.json', JSON.stringify({ logLevel: 'debug' }));
    const viaEnv = f.write('env.json', JSON.stringify({ logLevel: 'trace' }));
    const { config } = f.load({ env: { POSTERN_AGENT_CONFIG: viaEnv }, flags: { config: viaFlag } });

    expect(config.configFile).toBe(viaFlag);
    expect(config.logLevel).toBe('debug');
  });

  it('is named by POSTERN_AGENT_CONFIG when there is no --config', () => {
    const viaEnv = f.write('env.json', JSON.stringify({ logLevel: 'trace' }));
    const { config } = f.load({ env: { POSTERN_AGENT_CONFIG: viaEnv } });

    expect(config.configFile).toBe(viaEnv);
    expect(config.logLevel).toBe('trace');
  });

  it('falls back to the default path only when that file exists', () => {
    // The fixture's default path (standing in for /etc/postern-agent/config.json) does not exist.
    expect(f.load().config.configFile).toBeNull();

    const defaultFile = f.write('absent-default.json', JSON.stringify({ heartbeatSeconds: 60 }));
    const { config } = f.load();
    expect(config.configFile).toBe(defaultFile);
    expect(config.heartbeatSeconds).toBe(60);
  });

  it('resolves relative paths against its own directory, and those from the environment against the working directory', () => {
    f.write('etc/token', VALID_TOKEN);
    const file = f.write('etc/config.json', JSON.stringify({ tokenFile: 'token', stateFile: 'state.json' }));
    const { config } = f.load({
      env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_STATE_FILE: undefined },
      flags: { config: file },
    });

    expect(config.tokenFile).toBe(f.path('etc/token'));
    expect(config.stateFile).toBe(f.path('etc/state.json'));
    expect(f.load({ env: { POSTERN_AGENT_STATE_FILE: 'rel/state.json' } }).config.stateFile).toBe(
      f.path('rel/state.json'),
    );
  });

  it('treats null as not set, so the default applies', () => {
    expect(f.load({ file: { haproxy: { socket: null }, heartbeatSeconds: null } }).config.heartbeatSeconds).toBe(15);
  });

  it.each([
    ['an unknown top-level key', { serverURL: 'https://x.example.com' }, 'unknown setting "serverURL"'],
    ['an unknown key in a section', { scripts: { enable: true } }, 'unknown setting "scripts.enable"'],
    ['a dotted key instead of a section', { 'scripts.enabled': true }, 'unknown setting "scripts.enabled"'],
    ['an unknown section', { iptables: { chain: 'INPUT' } }, 'unknown setting "iptables"'],
    ['an unknown key in the nftables section', { nftables: { table: 'inet' } }, 'unknown setting "nftables.table"'],
  ])('refuses %s, naming the key', (_name, content, problem) => {
    const error = f.loadError({ file: content });

    expect(error.message).toBe(`${f.path('config.json')}: ${problem}`);
  });

  it('refuses a section that is not an object', () => {
    const error = f.loadError({ file: { ipset: ['allowed_v4'] } });

    expect(error.message).toBe(`${f.path('config.json')}: ipset: must be an object of settings`);
  });

  it.each([
    ['text that is not JSON', '{"serverUrl": ', 'is not valid JSON'],
    ['a JSON array', '["serverUrl"]', 'must hold one JSON object of settings'],
  ])('refuses %s', (_name, text, problem) => {
    const file = f.write('broken.json', text);

    expect(f.loadError({ flags: { config: file } }).message).toBe(`${file}: ${problem}`);
  });

  it.each([
    ['--config', (file: string) => ({ flags: { config: file } })],
    ['POSTERN_AGENT_CONFIG', (file: string) => ({ env: { POSTERN_AGENT_CONFIG: file } })],
  ])('refuses a missing file named by %s', (setting, given) => {
    const missing = f.path('missing.json');

    expect(f.loadError(given(missing)).message).toBe(`${setting}: cannot read ${missing} (ENOENT)`);
  });
});

describe('redaction', () => {
  it('shows the token in the effective configuration only as "[set]"', () => {
    const { config } = f.load();
    const described = describeConfig(config);

    expect(described.token).toBe('[set]');
    expect(JSON.stringify(described)).not.toContain(VALID_TOKEN);
  });

  it('keeps the token out of JSON, string and inspect output of the whole configuration', () => {
    const { config } = f.load();

    expect(JSON.stringify(config)).not.toContain(VALID_TOKEN);
    expect(JSON.stringify(config)).toContain('"token":"[set]"');
    expect(`${String(config.token)}`).toBe('[set]');
    expect(inspect(config, { depth: 5 })).not.toContain(VALID_TOKEN);
    expect(config.token.reveal()).toBe(VALID_TOKEN);
  });
});

describe('warnings', () => {
  it.each(['http://postern.example.com', 'ws://10.0.0.5:8080', 'http://127.example.com'])(
    'warns that %s sends the token in clear',
    (serverUrl) => {
      const { warnings } = f.load({ env: { POSTERN_AGENT_SERVER_URL: serverUrl } });

      expect(warnings).toEqual([expect.stringContaining('is not encrypted')]);
    },
  );

  it.each(['http://127.0.0.1:8080', 'http://localhost:8080', 'ws://[::1]:8080', 'https://postern.example.com'])(
    'does not warn about %s',
    (serverUrl) => {
      expect(f.load({ env: { POSTERN_AGENT_SERVER_URL: serverUrl } }).warnings).toEqual([]);
    },
  );

  it('warns loudly when certificate checks are off', () => {
    const { warnings } = f.load({ env: { POSTERN_AGENT_INSECURE_SKIP_VERIFY: 'true' } });

    expect(warnings).toEqual([expect.stringMatching(/^INSECURE: insecureSkipVerify is on/)]);
  });

  it('warns when the existing state directory is readable by others', () => {
    f.mkdir('state', 0o755);

    expect(f.load().warnings).toEqual([expect.stringContaining('has mode 755')]);
  });
});

describe('the state directory', () => {
  it('is only checked, not created, when loading for check-config', () => {
    f.load();

    expect(existsSync(f.path('state'))).toBe(false);
  });

  it('is created with mode 700 when the agent starts', () => {
    f.load({ env: { POSTERN_AGENT_STATE_FILE: f.path('a/b/state.json') }, createStateDirectory: true });

    expect(statSync(f.path('a/b')).mode & 0o777).toBe(0o700);
    expect(existsSync(f.path('a/b/state.json'))).toBe(false);
  });
});

describe('Azure clouds (azure.*)', () => {
  it('takes Azure China endpoints from the environment, without a trailing slash', () => {
    const { config } = f.load({
      env: {
        POSTERN_AGENT_AZURE_AUTHORITY_HOST: 'https://login.chinacloudapi.cn/',
        POSTERN_AGENT_AZURE_MANAGEMENT_ENDPOINT: 'https://management.chinacloudapi.cn',
      },
    });
    expect(config.azure.authorityHost).toBe('https://login.chinacloudapi.cn');
    expect(config.azure.managementEndpoint).toBe('https://management.chinacloudapi.cn');
  });

  it('takes the priority band from the config file', () => {
    const { config } = f.load({ file: { azure: { priorityFrom: 200, priorityTo: '299' } } });
    expect([config.azure.priorityFrom, config.azure.priorityTo]).toEqual([200, 299]);
  });

  it('refuses an endpoint that is not an http(s) URL, or carries credentials', () => {
    expect(() => f.load({ env: { POSTERN_AGENT_AZURE_AUTHORITY_HOST: 'login.chinacloudapi.cn' } })).toThrow(
      /POSTERN_AGENT_AZURE_AUTHORITY_HOST.*must be an https:\/\/ URL/,
    );
    expect(() =>
      f.load({ env: { POSTERN_AGENT_AZURE_MANAGEMENT_ENDPOINT: 'https://user:pw@management.azure.com' } }),
    ).toThrow(/POSTERN_AGENT_AZURE_MANAGEMENT_ENDPOINT/);
  });

  it('refuses an empty or out-of-range priority band', () => {
    expect(() =>
      f.load({ env: { POSTERN_AGENT_AZURE_PRIORITY_FROM: '3500', POSTERN_AGENT_AZURE_PRIORITY_TO: '3400' } }),
    ).toThrow(/POSTERN_AGENT_AZURE_PRIORITY_TO.*must not be below azure.priorityFrom \(3500\)/);
    expect(() => f.load({ env: { POSTERN_AGENT_AZURE_PRIORITY_FROM: '99' } })).toThrow(
      /POSTERN_AGENT_AZURE_PRIORITY_FROM.*from 100 to 4096/,
    );
  });
});
