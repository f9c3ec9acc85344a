import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createConfigFixture,
  VALID_TOKEN,
  type ConfigFixture,
  type LoadInput,
} from '../test-support/config-fixture.js';

let f: ConfigFixture;
beforeEach(() => {
  f = createConfigFixture();
});
afterEach(() => {
  f.remove();
});

interface RefusedCase {
  name: string;
  /** Builds the input in the test's fixture (some cases need files). */
  given: (f: ConfigFixture) => LoadInput;
  /** The setting as the error must name it. */
  setting: (f: ConfigFixture) => string;
  problem: string | RegExp;
}

const env = (values: Record<string, string | undefined>) => () => ({ env: values });
const named = (setting: string) => () => setting;
const NOT_BOOLEAN = 'must be true or false (or yes/no, 1/0)';
const TIMEOUT = 'must be a whole number of seconds from 1 to 600';
const HEARTBEAT = 'must be a whole number of seconds from 5 to 300';
const DRIFT_CHECK = 'must be 0 (off) or a whole number of seconds from 10 to 86400';
const SOCKET = 'must be an absolute unix socket path or tcp://host:port';
const TOKEN_RULE = 'must be at least 20 characters with no whitespace';
const SHORT_TOKEN = 'x'.repeat(19);
const PEM_CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const PEM_KEY = '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n';

const REFUSED: RefusedCase[] = [
  {
    name: 'a missing server URL',
    given: env({ POSTERN_AGENT_SERVER_URL: undefined }),
    setting: named('POSTERN_AGENT_SERVER_URL'),
    problem: 'must be set (serverUrl in the config file, POSTERN_AGENT_SERVER_URL or --server-url)',
  },
  {
    name: 'a server URL with another scheme',
    given: env({ POSTERN_AGENT_SERVER_URL: 'ftp://x' }),
    setting: named('POSTERN_AGENT_SERVER_URL'),
    problem: 'must be an https:// or http:// URL (got "ftp://x")',
  },
  {
    name: 'a server URL without a scheme',
    given: env({ POSTERN_AGENT_SERVER_URL: 'postern.example.com' }),
    setting: named('POSTERN_AGENT_SERVER_URL'),
    problem: 'must be an https:// or http:// URL (got "postern.example.com")',
  },
  {
    name: 'a server URL with credentials, without repeating them',
    given: env({ POSTERN_AGENT_SERVER_URL: 'https://agent:hunter2@postern.example.com' }),
    setting: named('POSTERN_AGENT_SERVER_URL'),
    problem: 'must not contain a user name or password; the agent uses its token',
  },
  {
    name: 'a server URL with credentials and another scheme, without repeating them',
    given: env({ POSTERN_AGENT_SERVER_URL: 'ftp://agent:hunter2@postern.example.com' }),
    setting: named('POSTERN_AGENT_SERVER_URL'),
    problem: 'must not contain a user name or password; the agent uses its token',
  },
  {
    name: 'a server URL with a query',
    given: env({ POSTERN_AGENT_SERVER_URL: 'https://postern.example.com/?token=abc' }),
    setting: named('POSTERN_AGENT_SERVER_URL'),
    problem: 'must not have a query (?…) or fragment (#…)',
  },
  {
    name: 'a token shorter than 20 characters, without repeating it',
    given: env({ POSTERN_AGENT_TOKEN: SHORT_TOKEN }),
    setting: named('POSTERN_AGENT_TOKEN'),
    problem: TOKEN_RULE,
  },
  {
    name: 'a token with whitespace',
    given: env({ POSTERN_AGENT_TOKEN: `${VALID_TOKEN} ${VALID_TOKEN}` }),
    setting: named('POSTERN_AGENT_TOKEN'),
    problem: TOKEN_RULE,
  },
  {
    name: 'no token at all',
    given: env({ POSTERN_AGENT_TOKEN: undefined }),
    setting: named('POSTERN_AGENT_TOKEN_FILE'),
    problem: /^no token given; set POSTERN_AGENT_TOKEN_FILE/,
  },
  {
    name: 'a token and a token file at once',
    given: (f) => ({ env: { POSTERN_AGENT_TOKEN_FILE: f.write('token', VALID_TOKEN) } }),
    setting: named('POSTERN_AGENT_TOKEN_FILE'),
    problem: 'the token is also given by POSTERN_AGENT_TOKEN; give it one way only (prefer the file)',
  },
  {
    name: 'a token file that does not exist',
    given: (f) => ({ env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: f.path('missing') } }),
    setting: named('POSTERN_AGENT_TOKEN_FILE'),
    problem: /^cannot read \/.*\/missing \(ENOENT\)$/,
  },
  ...[0o640, 0o604, 0o644].map((mode) => ({
    name: `a token file with mode ${mode.toString(8)}`,
    given: (f: ConfigFixture) => ({
      env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: f.write('token', VALID_TOKEN, mode) },
    }),
    setting: named('POSTERN_AGENT_TOKEN_FILE'),
    problem: new RegExp(`is readable by group or others \\(mode ${mode.toString(8)}\\); run chmod 600 `),
  })),
  {
    name: 'an empty token file',
    given: (f) => ({ env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: f.write('token', '\n') } }),
    setting: named('POSTERN_AGENT_TOKEN_FILE'),
    problem: /\/token is empty$/,
  },
  {
    name: 'a token file holding a short token',
    given: (f) => ({
      env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: f.write('token', SHORT_TOKEN) },
    }),
    setting: named('POSTERN_AGENT_TOKEN_FILE'),
    problem: new RegExp(`^the token in /.*/token ${TOKEN_RULE}$`),
  },
  {
    name: 'a CA file that does not exist',
    given: (f) => ({ env: { POSTERN_AGENT_CA_FILE: f.path('ca.pem') } }),
    setting: named('POSTERN_AGENT_CA_FILE'),
    problem: /^cannot read \/.*\/ca\.pem \(ENOENT\)$/,
  },
  {
    name: 'a CA file without a PEM certificate',
    given: (f) => ({ env: { POSTERN_AGENT_CA_FILE: f.write('ca.pem', 'not a certificate\n', 0o644) } }),
    setting: named('POSTERN_AGENT_CA_FILE'),
    problem: /ca\.pem holds no PEM certificate \(no "-----BEGIN CERTIFICATE-----" line\)$/,
  },
  {
    name: 'insecureSkipVerify that is not a boolean',
    given: env({ POSTERN_AGENT_INSECURE_SKIP_VERIFY: 'maybe' }),
    setting: named('POSTERN_AGENT_INSECURE_SKIP_VERIFY'),
    problem: `${NOT_BOOLEAN} (got "maybe")`,
  },
  {
    name: 'scripts.enabled that is not a boolean',
    given: env({ POSTERN_AGENT_SCRIPTS_ENABLED: 'on please' }),
    setting: named('POSTERN_AGENT_SCRIPTS_ENABLED'),
    problem: `${NOT_BOOLEAN} (got "on please")`,
  },
  {
    name: 'ipset.useSudo that is not a boolean',
    given: env({ POSTERN_AGENT_IPSET_SUDO: '2' }),
    setting: named('POSTERN_AGENT_IPSET_SUDO'),
    problem: `${NOT_BOOLEAN} (got "2")`,
  },
  ...['0', '601', '1.5', 'ten', '-5'].map((value) => ({
    name: `a script timeout of ${value}`,
    given: env({ POSTERN_AGENT_SCRIPTS_TIMEOUT: value }),
    setting: named('POSTERN_AGENT_SCRIPTS_TIMEOUT'),
    problem: `${TIMEOUT} (got "${value}")`,
  })),
  ...['0.0.0.0:9465', '10.0.0.5:9465', '127.0.0.1', '[::]:9465', '127.0.0.1:0'].map((value) => ({
    name: `metrics on ${value}`,
    given: env({ POSTERN_AGENT_METRICS_LISTEN: value }),
    setting: named('POSTERN_AGENT_METRICS_LISTEN'),
    problem: `must be "off" or a loopback host:port such as 127.0.0.1:9465 or [::1]:9465 (got "${value}")`,
  })),
  ...['4', '301', '15s'].map((value) => ({
    name: `a heartbeat of ${value}`,
    given: env({ POSTERN_AGENT_HEARTBEAT_SECONDS: value }),
    setting: named('POSTERN_AGENT_HEARTBEAT_SECONDS'),
    problem: `${HEARTBEAT} (got "${value}")`,
  })),
  ...['9', '86401', '-1', '5m'].map((value) => ({
    name: `a drift check every ${value}`,
    given: env({ POSTERN_AGENT_DRIFT_CHECK_SECONDS: value }),
    setting: named('POSTERN_AGENT_DRIFT_CHECK_SECONDS'),
    problem: `${DRIFT_CHECK} (got "${value}")`,
  })),
  ...['has space', 'x'.repeat(32), 'a;b', 'set/1'].map((name) => ({
    name: `an ipset name "${name}"`,
    given: env({ POSTERN_AGENT_IPSET_ALLOWED_SETS: `allowed_v4,${name}` }),
    setting: named('POSTERN_AGENT_IPSET_ALLOWED_SETS'),
    problem: `"${name}" is not an ipset name (1 to 31 of A-Z a-z 0-9 _ . : -)`,
  })),
  {
    name: 'nftables.useSudo that is not a boolean',
    given: env({ POSTERN_AGENT_NFTABLES_SUDO: 'sometimes' }),
    setting: named('POSTERN_AGENT_NFTABLES_SUDO'),
    problem: `${NOT_BOOLEAN} (got "sometimes")`,
  },
  ...[
    'allow4',
    'postern/allow4',
    'bridge/postern/allow4',
    'inet/postern/allow4/x',
    'inet/my table/allow4',
    'inet/postern/4allow',
    `inet/postern/${'x'.repeat(65)}`,
  ].map((set) => ({
    name: `an nftables set "${set}"`,
    given: env({ POSTERN_AGENT_NFTABLES_ALLOWED_SETS: `inet/postern/allow6,${set}` }),
    setting: named('POSTERN_AGENT_NFTABLES_ALLOWED_SETS'),
    problem: `"${set}" is not an nftables set as family/table/set (family inet, ip or ip6; table and set: a letter, then up to 63 letters, digits, _ or -)`,
  })),
  ...['run/haproxy.sock', 'tcp://haproxy', 'tcp://:9999', 'tcp://haproxy:99999', 'http://haproxy:9999'].map(
    (value) => ({
      name: `a HAProxy socket "${value}"`,
      given: env({ POSTERN_AGENT_HAPROXY_SOCKET: value }),
      setting: named('POSTERN_AGENT_HAPROXY_SOCKET'),
      problem: `${SOCKET} (got "${value}")`,
    }),
  ),
  {
    name: 'a knocproxy certificate without its key',
    given: (f) => ({ env: { POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE: f.write('proxy.crt', PEM_CERT, 0o644) } }),
    setting: named('POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE'),
    problem: 'needs knocproxy.tlsKeyFile as well',
  },
  {
    name: 'a knocproxy key without its certificate',
    given: (f) => ({ env: { POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE: f.write('proxy.key', PEM_KEY, 0o600) } }),
    setting: named('POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE'),
    problem: 'needs knocproxy.tlsCertFile as well',
  },
  {
    name: 'a knocproxy key others can read',
    given: (f) => ({
      env: {
        POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE: f.write('proxy.crt', PEM_CERT, 0o644),
        POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE: f.write('proxy.key', PEM_KEY, 0o644),
      },
    }),
    setting: named('POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE'),
    problem: /proxy\.key is readable by group or others \(mode 644\); run chmod 600 /,
  },
  {
    name: 'a knocproxy key file without a private key',
    given: (f) => ({
      env: {
        POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE: f.write('proxy.crt', PEM_CERT, 0o644),
        POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE: f.write('proxy.key', PEM_CERT, 0o600),
      },
    }),
    setting: named('POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE'),
    problem: /proxy\.key holds no PEM private key$/,
  },
  {
    name: 'a knocproxy certificate file without a certificate',
    given: (f) => ({
      env: {
        POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE: f.write('proxy.crt', PEM_KEY, 0o644),
        POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE: f.write('proxy.key', PEM_KEY, 0o600),
      },
    }),
    setting: named('POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE'),
    problem: /proxy\.crt holds no PEM certificate/,
  },
  ...[
    'http://ec2.example.com',
    'ftp://ec2.example.com',
    'https://key:secret@ec2.example.com',
    'https://ec2.example.com/?a=1',
    'ec2',
  ].map((value) => ({
    name: `an AWS endpoint "${value}"`,
    given: env({ POSTERN_AGENT_AWS_ENDPOINT: value }),
    setting: named('POSTERN_AGENT_AWS_ENDPOINT'),
    problem: /^must be an https URL without credentials, query or fragment/,
  })),
  {
    name: 'an unknown log level',
    given: env({ POSTERN_AGENT_LOG_LEVEL: 'verbose' }),
    setting: named('POSTERN_AGENT_LOG_LEVEL'),
    problem: 'must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
  },
  {
    name: 'a state file below a regular file',
    given: (f) => ({ env: { POSTERN_AGENT_STATE_FILE: `${f.write('plain', '')}/state.json` } }),
    setting: named('POSTERN_AGENT_STATE_FILE'),
    problem: /cannot be created: a parent is not a directory$/,
  },
  {
    name: 'a state file that is a directory',
    given: (f) => ({ env: { POSTERN_AGENT_STATE_FILE: f.mkdir('state-dir') } }),
    setting: named('POSTERN_AGENT_STATE_FILE'),
    problem: /\/state-dir is a directory, not a file$/,
  },
  {
    name: 'enabled scripts without their directory',
    given: (f) => ({ env: { POSTERN_AGENT_SCRIPTS_ENABLED: 'yes', POSTERN_AGENT_SCRIPTS_DIR: f.path('scripts') } }),
    setting: named('POSTERN_AGENT_SCRIPTS_DIR'),
    problem: /^scripts are enabled but \/.*\/scripts cannot be used \(ENOENT\)$/,
  },
  {
    name: 'enabled scripts in a directory others can write',
    given: (f) => ({
      env: { POSTERN_AGENT_SCRIPTS_ENABLED: 'yes', POSTERN_AGENT_SCRIPTS_DIR: f.mkdir('scripts', 0o775) },
    }),
    setting: named('POSTERN_AGENT_SCRIPTS_DIR'),
    problem: /\/scripts is writable by group or others \(mode 775\); run chmod go-w /,
  },
  {
    name: 'a bad value from a flag, named as the flag',
    given: () => ({ flags: { logLevel: 'loud' } }),
    setting: named('--log-level'),
    problem: 'must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
  },
  {
    name: 'a bad value from the config file, named by file and key',
    given: () => ({ env: { POSTERN_AGENT_SERVER_URL: undefined }, file: { serverUrl: 'ftp://x' } }),
    setting: (f) => `${f.path('config.json')}: serverUrl`,
    problem: 'must be an https:// or http:// URL (got "ftp://x")',
  },
  {
    name: 'a bad nested value from the config file',
    given: () => ({ file: { scripts: { timeoutSeconds: 1.5 } } }),
    setting: (f) => `${f.path('config.json')}: scripts.timeoutSeconds`,
    problem: `${TIMEOUT} (got 1.5)`,
  },
  {
    name: 'a number where the config file needs a boolean',
    given: () => ({ file: { insecureSkipVerify: 1 } }),
    setting: (f) => `${f.path('config.json')}: insecureSkipVerify`,
    problem: `${NOT_BOOLEAN} (got 1)`,
  },
];

describe('configuration rules', () => {
  it.each(REFUSED)('refuses $name, naming the setting', ({ given, setting, problem }) => {
    const error = f.loadError(given(f));

    expect(error.setting).toBe(setting(f));
    expect(error.message.startsWith(`${setting(f)}: `)).toBe(true);
    const text = error.message.slice(setting(f).length + 2);
    if (typeof problem === 'string') expect(text).toBe(problem);
    else expect(text).toMatch(problem);
  });

  it('never repeats a token, or a password or query in the server URL, in an error', () => {
    const messages = [
      f.loadError({ env: { POSTERN_AGENT_TOKEN: SHORT_TOKEN } }).message,
      f.loadError({ env: { POSTERN_AGENT_TOKEN: `${VALID_TOKEN} x` } }).message,
      f.loadError({ env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: f.write('t', SHORT_TOKEN) } })
        .message,
      f.loadError({ env: { POSTERN_AGENT_SERVER_URL: 'https://agent:hunter2@postern.example.com' } }).message,
      f.loadError({ env: { POSTERN_AGENT_SERVER_URL: 'ftp://postern.example.com/?token=hunter2' } }).message,
    ];

    for (const message of messages) {
      expect(message).not.toContain(SHORT_TOKEN);
      expect(message).not.toContain(VALID_TOKEN);
      expect(message).not.toContain('hunter2');
    }
  });

  it.each([
    ['true', true],
    ['false', false],
    ['1', true],
    ['0', false],
    ['yes', true],
    ['no', false],
    [' YES ', true],
    ['False', false],
  ])('reads the boolean %j as %s', (word, expected) => {
    const { config } = f.load({ env: { POSTERN_AGENT_IPSET_SUDO: word, POSTERN_AGENT_INSECURE_SKIP_VERIFY: word } });

    expect(config.ipset.useSudo).toBe(expected);
    expect(config.insecureSkipVerify).toBe(expected);
  });

  it('takes real JSON booleans from the config file', () => {
    const { config } = f.load({ file: { insecureSkipVerify: true, ipset: { useSudo: true } } });

    expect(config.insecureSkipVerify).toBe(true);
    expect(config.ipset.useSudo).toBe(true);
  });

  it.each([
    ['POSTERN_AGENT_SCRIPTS_TIMEOUT', '1', 'scripts.timeoutSeconds', 1],
    ['POSTERN_AGENT_SCRIPTS_TIMEOUT', '600', 'scripts.timeoutSeconds', 600],
    ['POSTERN_AGENT_HEARTBEAT_SECONDS', '5', 'heartbeatSeconds', 5],
    ['POSTERN_AGENT_HEARTBEAT_SECONDS', '300', 'heartbeatSeconds', 300],
    ['POSTERN_AGENT_DRIFT_CHECK_SECONDS', '0', 'driftCheckSeconds', 0],
    ['POSTERN_AGENT_DRIFT_CHECK_SECONDS', '10', 'driftCheckSeconds', 10],
    ['POSTERN_AGENT_DRIFT_CHECK_SECONDS', '86400', 'driftCheckSeconds', 86400],
  ])('accepts %s=%s at the edge of its range', (name, value, key, expected) => {
    const { config } = f.load({ env: { [name]: value } });

    const actual =
      key === 'heartbeatSeconds'
        ? config.heartbeatSeconds
        : key === 'driftCheckSeconds'
          ? config.driftCheckSeconds
          : config.scripts.timeoutSeconds;
    expect(actual).toBe(expected);
  });

  it.each([
    ['off', null],
    ['127.0.0.1:9465', { host: '127.0.0.1', port: 9465 }],
    ['[::1]:9465', { host: '::1', port: 9465 }],
    ['localhost:9100', { host: 'localhost', port: 9100 }],
  ])('takes metrics on %s (loopback only)', (value, expected) => {
    expect(f.load({ env: { POSTERN_AGENT_METRICS_LISTEN: value } }).config.metrics.listen).toEqual(expected);
  });

  it('reads allowed ipsets from a comma-separated variable, trimmed and without duplicates', () => {
    const { config } = f.load({
      env: { POSTERN_AGENT_IPSET_ALLOWED_SETS: ' allowed_v4, allowed-v6:web ,,allowed_v4' },
    });

    expect(config.ipset.allowedSets).toEqual(['allowed_v4', 'allowed-v6:web']);
  });

  it('reads allowed ipsets from a JSON array in the config file', () => {
    const { config } = f.load({ file: { ipset: { allowedSets: ['a.b', 'x'.repeat(31)] } } });

    expect(config.ipset.allowedSets).toEqual(['a.b', 'x'.repeat(31)]);
  });

  it('reads allowed nftables sets from a comma-separated variable, trimmed and without duplicates', () => {
    const { config } = f.load({
      env: { POSTERN_AGENT_NFTABLES_ALLOWED_SETS: ' inet/postern/allow4, ip6/filter/granted-v6 ,,inet/postern/allow4' },
    });

    expect(config.nftables.allowedSets).toEqual(['inet/postern/allow4', 'ip6/filter/granted-v6']);
  });

  it('reads allowed nftables sets and useSudo from the nftables section of the config file', () => {
    const { config } = f.load({
      file: { nftables: { allowedSets: ['ip/filter/a4', `inet/t/${'x'.repeat(64)}`], useSudo: true } },
    });

    expect(config.nftables).toEqual({ allowedSets: ['ip/filter/a4', `inet/t/${'x'.repeat(64)}`], useSudo: true });
  });

  it.each([
    ['/run/haproxy/admin.sock', { kind: 'unix', path: '/run/haproxy/admin.sock' }],
    ['tcp://127.0.0.1:9999', { kind: 'tcp', host: '127.0.0.1', port: 9999 }],
    ['tcp://[::1]:9999', { kind: 'tcp', host: '::1', port: 9999 }],
    ['tcp://haproxy.internal:1', { kind: 'tcp', host: 'haproxy.internal', port: 1 }],
  ])('reads the HAProxy socket %s', (value, expected) => {
    const { config } = f.load({ env: { POSTERN_AGENT_HAPROXY_SOCKET: value } });

    expect(config.haproxy.socket).toEqual(expected);
  });

  it.each([
    ['https://postern.example.com', 'https://postern.example.com', 'wss://postern.example.com/api/agent/v1/connect'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080', 'ws://127.0.0.1:8080/api/agent/v1/connect'],
    ['wss://example.com/postern/', 'wss://example.com/postern', 'wss://example.com/postern/api/agent/v1/connect'],
    ['ws://localhost:8080', 'ws://localhost:8080', 'ws://localhost:8080/api/agent/v1/connect'],
  ])('accepts the server URL %s and connects to the agent endpoint under it', (value, serverUrl, connectUrl) => {
    const { config } = f.load({ env: { POSTERN_AGENT_SERVER_URL: value } });

    expect(config.serverUrl).toBe(serverUrl);
    expect(config.connectUrl).toBe(connectUrl);
  });

  it('accepts a token of exactly 20 characters', () => {
    const { config } = f.load({ env: { POSTERN_AGENT_TOKEN: 'x'.repeat(20) } });

    expect(config.token.reveal()).toBe('x'.repeat(20));
  });

  it('reads the token file, trimming the trailing newline', () => {
    const file = f.write('token', `${VALID_TOKEN}\n`, 0o400);
    const { config } = f.load({ env: { POSTERN_AGENT_TOKEN: undefined, POSTERN_AGENT_TOKEN_FILE: file } });

    expect(config.token.reveal()).toBe(VALID_TOKEN);
    expect(config.tokenFile).toBe(file);
  });

  it('accepts a PEM CA file', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const file = f.write('ca.pem', pem, 0o644);

    expect(f.load({ env: { POSTERN_AGENT_CA_FILE: file } }).config.caFile).toBe(file);
  });

  it('accepts a knocproxy certificate with a key only its owner can read', () => {
    const cert = f.write('proxy.crt', PEM_CERT, 0o644);
    const key = f.write('proxy.key', PEM_KEY, 0o600);
    const { config } = f.load({
      env: { POSTERN_AGENT_KNOCPROXY_TLS_CERT_FILE: cert, POSTERN_AGENT_KNOCPROXY_TLS_KEY_FILE: key },
    });

    expect(config.knocproxy).toEqual({ tlsCertFile: cert, tlsKeyFile: key });
  });

  it('reads the AWS endpoint (GovCloud, VPC endpoint), empty meaning the regional default', () => {
    const endpoint = 'https://vpce-0abc.ec2.us-gov-west-1.vpce.amazonaws.com/';
    expect(f.load({ env: { POSTERN_AGENT_AWS_ENDPOINT: endpoint } }).config.aws).toEqual({
      endpoint: 'https://vpce-0abc.ec2.us-gov-west-1.vpce.amazonaws.com',
    });
    expect(f.load({ env: { POSTERN_AGENT_AWS_ENDPOINT: '' } }).config.aws).toEqual({ endpoint: null });
    expect(f.load({ file: { aws: { endpoint: 'http://127.0.0.1:4566' } } }).config.aws).toEqual({
      endpoint: 'http://127.0.0.1:4566',
    });
  });

  it('accepts enabled scripts in a directory only the owner can write', () => {
    const dir = f.mkdir('scripts', 0o755);
    const { config } = f.load({ env: { POSTERN_AGENT_SCRIPTS_ENABLED: 'true', POSTERN_AGENT_SCRIPTS_DIR: dir } });

    expect(config.scripts).toEqual({ enabled: true, directory: dir, timeoutSeconds: 30 });
  });
});
