import { mkdtempSync, rmSync, writeFileSync, statSync, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { ConfigError } from './config-error.js';
import { prepareDataDir } from './data-dir.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'postern-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const load = (env: Record<string, string>) => loadConfig(env, dir);

describe('configuration', () => {
  it('has working defaults: localhost:8080, ./data, embedded SQLite, no trusted proxies', () => {
    expect(load({})).toEqual({
      host: '127.0.0.1',
      port: 8080,
      listenBacklog: 16_384,
      dataDir: path.join(dir, 'data'),
      store: { kind: 'sqlite', file: path.join(dir, 'data', 'postern.db') },
      trustedProxies: [],
      publicUrl: null,
      secretKey: null,
      insecureHttp: false,
      logLevel: 'info',
      webDir: null,
      licencePublicKeys: [],
      ipDiscoveryPorts: [443, 222, 3389, 8000],
      supportUrl: null,
      supportEmail: null,
      licensingUrl: null,
      releaseFeed: null,
      experimentalFeatures: [],
      metrics: { host: '127.0.0.1', port: 9464, token: null },
    });
  });

  it('takes the metrics listener off, or on loopback without a token', () => {
    expect(load({ POSTERN_METRICS_LISTEN: 'off' }).metrics).toBeNull();
    expect(load({ POSTERN_METRICS_LISTEN: '[::1]:9100' }).metrics).toEqual({ host: '::1', port: 9100, token: null });
    expect(load({ POSTERN_METRICS_LISTEN: 'localhost:9100' }).metrics?.token).toBeNull();
  });

  it('reads every setting from the environment', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    const config = load({
      POSTERN_HOST: '0.0.0.0',
      POSTERN_PORT: '9443',
      POSTERN_LISTEN_BACKLOG: '32768',
      POSTERN_DATA_DIR: '/var/lib/postern',
      DATABASE_URL: 'postgres://postern@db:5432/postern',
      POSTERN_TRUSTED_PROXIES: '10.0.0.1, 192.168.0.0/16,::1',
      POSTERN_PUBLIC_URL: 'https://access.example.com/',
      POSTERN_SECRET_KEY: key,
      POSTERN_INSECURE_HTTP: 'yes',
      POSTERN_LOG_LEVEL: 'DEBUG',
      POSTERN_WEB_DIR: 'web',
      POSTERN_LICENCE_PUBLIC_KEYS: `${Buffer.alloc(32, 1).toString('base64')}, ${Buffer.alloc(32, 2).toString('base64')}`,
      POSTERN_IP_DISCOVERY_PORTS: '8000, 8443,8000',
      POSTERN_SUPPORT_URL: 'https://help.example.com/postern',
      POSTERN_SUPPORT_EMAIL: ' help@example.com ',
      POSTERN_RELEASE_FEED: 'https://releases.example.com/postern.json',
      POSTERN_LICENSING_URL: ' https://shop.example.com/licences?product=postern ',
      POSTERN_EXPERIMENTAL_FEATURES: 'Enhanced-Custom-Script, enhanced-custom-script',
      POSTERN_METRICS_LISTEN: '[::]:9100',
      POSTERN_METRICS_TOKEN: ' 0123456789abcdef0123 ',
    });
    expect(config).toEqual({
      host: '0.0.0.0',
      port: 9443,
      listenBacklog: 32_768,
      dataDir: '/var/lib/postern',
      store: { kind: 'postgres', url: 'postgres://postern@db:5432/postern' },
      trustedProxies: ['10.0.0.1', '192.168.0.0/16', '::1'],
      publicUrl: 'https://access.example.com',
      secretKey: Buffer.alloc(32, 7),
      insecureHttp: true,
      logLevel: 'debug',
      webDir: path.join(dir, 'web'),
      licencePublicKeys: [Buffer.alloc(32, 1), Buffer.alloc(32, 2)],
      ipDiscoveryPorts: [8000, 8443],
      supportUrl: 'https://help.example.com/postern',
      supportEmail: 'help@example.com',
      licensingUrl: 'https://shop.example.com/licences?product=postern',
      releaseFeed: { kind: 'url', url: 'https://releases.example.com/postern.json' },
      experimentalFeatures: ['enhanced-custom-script'],
      metrics: { host: '::', port: 9100, token: '0123456789abcdef0123' },
    });
    expect(load({ POSTERN_IP_DISCOVERY_PORTS: 'off' }).ipDiscoveryPorts).toEqual([]);
  });

  it('reads a JSON config file named by POSTERN_CONFIG, and the environment wins over it', () => {
    writeFileSync(
      path.join(dir, 'postern.json'),
      JSON.stringify({ port: 9000, host: '::', trustedProxies: ['10.1.1.1'], logLevel: 'warn' }),
    );
    const config = load({ POSTERN_CONFIG: 'postern.json', POSTERN_LOG_LEVEL: 'error' });
    expect(config).toMatchObject({ port: 9000, host: '::', trustedProxies: ['10.1.1.1'], logLevel: 'error' });
  });

  it.each([
    [{ POSTERN_PORT: 'abc' }, 'POSTERN_PORT: must be a whole number from 1 to 65535 (got "abc")'],
    [
      { POSTERN_IP_DISCOVERY_PORTS: '443,http' },
      'POSTERN_IP_DISCOVERY_PORTS: must be "off" or a comma-separated list of ports from 1 to 65535 (got "443,http")',
    ],
    [{ POSTERN_PORT: '0' }, 'POSTERN_PORT: must be a whole number from 1 to 65535 (got "0")'],
    [{ POSTERN_PORT: '65536' }, 'POSTERN_PORT: must be a whole number from 1 to 65535 (got "65536")'],
    [{ POSTERN_PORT: '80.5' }, 'POSTERN_PORT: must be a whole number from 1 to 65535 (got "80.5")'],
    [{ POSTERN_LISTEN_BACKLOG: '0' }, 'POSTERN_LISTEN_BACKLOG: must be a whole number from 1 to 1000000 (got "0")'],
    [{ POSTERN_HOST: 'http://x' }, 'POSTERN_HOST: must be a host name or IP address (got "http://x")'],
    [{ POSTERN_DATA_DIR: ' ' }, 'POSTERN_DATA_DIR: must not be empty'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL: must be a URL such as postgres://user@host:5432/postern'],
    [
      { DATABASE_URL: 'mysql://root@localhost/postern' },
      'DATABASE_URL: must start with postgres:// or postgresql:// (got mysql://); leave it unset for the embedded store',
    ],
    [
      { POSTERN_TRUSTED_PROXIES: '10.0.0.1,proxy.local' },
      'POSTERN_TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR range',
    ],
    [
      { POSTERN_TRUSTED_PROXIES: '10.0.0.0/33' },
      'POSTERN_TRUSTED_PROXIES: "10.0.0.0/33" is not an IP address or CIDR range',
    ],
    [
      { POSTERN_TRUSTED_PROXIES: 'fe80::1%eth0' },
      'POSTERN_TRUSTED_PROXIES: "fe80::1%eth0" is not an IP address or CIDR range',
    ],
    [{ POSTERN_PUBLIC_URL: 'ftp://x.example' }, 'POSTERN_PUBLIC_URL: URL must be http or https'],
    [{ POSTERN_SUPPORT_URL: 'javascript:alert(1)' }, 'POSTERN_SUPPORT_URL: URL must be http or https'],
    [{ POSTERN_LICENSING_URL: 'shop.example.com' }, 'POSTERN_LICENSING_URL: must be an http or https URL'],
    [
      { POSTERN_LICENSING_URL: 'https://user:secret@shop.example.com' },
      'POSTERN_LICENSING_URL: URL must not contain a user name or password',
    ],
    [
      { POSTERN_SUPPORT_EMAIL: 'help@example.com?subject=x' },
      'POSTERN_SUPPORT_EMAIL: must be one mail address such as help@example.com',
    ],
    [{ POSTERN_SUPPORT_EMAIL: 'a@b.example, c@d.example' }, 'POSTERN_SUPPORT_EMAIL: must be one mail address'],
    [{ POSTERN_SUPPORT_EMAIL: 'help.example.com' }, 'POSTERN_SUPPORT_EMAIL: must be one mail address'],
    [
      { POSTERN_RELEASE_FEED: 'http://releases.example.com/feed.json' },
      'POSTERN_RELEASE_FEED: must be an https URL (http only to this machine) or a file path',
    ],
    [{ POSTERN_RELEASE_FEED: 'ftp://releases.example.com/feed.json' }, 'POSTERN_RELEASE_FEED: must be an https URL'],
    [
      { POSTERN_RELEASE_FEED: 'https://u:p@releases.example.com/feed.json' },
      'POSTERN_RELEASE_FEED: URL must not contain a user name or password',
    ],
    [
      { POSTERN_SECRET_KEY: 'c2hvcnQ=' },
      'POSTERN_SECRET_KEY: must be 32 random bytes in base64 (for example: openssl rand -base64 32)',
    ],
    [
      { POSTERN_EXPERIMENTAL_FEATURES: 'enhanced-custom-scripts' },
      'POSTERN_EXPERIMENTAL_FEATURES: "enhanced-custom-scripts" is not an experimental feature (known: enhanced-custom-script)',
    ],
    [{ POSTERN_INSECURE_HTTP: 'maybe' }, 'POSTERN_INSECURE_HTTP: must be true or false (got "maybe")'],
    [
      { POSTERN_METRICS_LISTEN: '9464' },
      'POSTERN_METRICS_LISTEN: must be "off" or host:port, such as 127.0.0.1:9464 or [::1]:9464 (got "9464")',
    ],
    [{ POSTERN_METRICS_LISTEN: '127.0.0.1:70000' }, 'POSTERN_METRICS_LISTEN: must be "off" or host:port'],
    [{ POSTERN_METRICS_LISTEN: '::1:9464' }, 'POSTERN_METRICS_LISTEN: must be "off" or host:port'],
    [
      { POSTERN_METRICS_LISTEN: '0.0.0.0:9464' },
      'POSTERN_METRICS_LISTEN: 0.0.0.0 is not a loopback address: set POSTERN_METRICS_TOKEN so scrapers must present it, or listen on 127.0.0.1',
    ],
    [
      { POSTERN_METRICS_LISTEN: '10.0.0.5:9464', POSTERN_METRICS_TOKEN: 'short' },
      'POSTERN_METRICS_TOKEN: must be at least 16 characters',
    ],
    [
      { POSTERN_LOG_LEVEL: 'loud' },
      'POSTERN_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "loud")',
    ],
  ])('refuses %o with one line naming the setting', (env, message) => {
    expect(() => load(env)).toThrow(ConfigError);
    expect(() => load(env)).toThrow(message);
  });

  it('takes the release feed as a file path (relative to the working directory) or a loopback http URL', () => {
    expect(load({ POSTERN_RELEASE_FEED: 'releases.json' }).releaseFeed).toEqual({
      kind: 'file',
      path: path.join(dir, 'releases.json'),
    });
    expect(load({ POSTERN_RELEASE_FEED: '/srv/feed.json' }).releaseFeed).toEqual({
      kind: 'file',
      path: '/srv/feed.json',
    });
    expect(load({ POSTERN_RELEASE_FEED: 'http://127.0.0.1:8000/feed.json' }).releaseFeed).toEqual({
      kind: 'url',
      url: 'http://127.0.0.1:8000/feed.json',
    });
  });

  it.each([
    ['a missing file', null, /^POSTERN_CONFIG: cannot read .*missing\.json \(ENOENT\)$/],
    ['invalid JSON', '{ port: 1 }', /^POSTERN_CONFIG: .*\.json is not valid JSON$/],
    ['a list instead of an object', '[1, 2]', /^POSTERN_CONFIG: .*\.json must hold one JSON object of settings$/],
    ['an unknown setting', '{"prot": 8080}', /^POSTERN_CONFIG: .*\.json has an unknown setting "prot"$/],
    ['a bad value', '{"port": "http"}', /^POSTERN_PORT: must be a whole number/],
  ])('refuses a config file with %s', (_name, content, message) => {
    const file = content === null ? 'missing.json' : 'bad.json';
    if (content !== null) writeFileSync(path.join(dir, file), content);
    expect(() => load({ POSTERN_CONFIG: file })).toThrow(message);
  });
});

describe('data directory', () => {
  it('creates a missing directory with mode 0700', () => {
    const target = path.join(dir, 'nested', 'data');
    expect(prepareDataDir(target)).toEqual({ warning: null });
    expect(statSync(target).mode & 0o777).toBe(0o700);
  });

  it('warns about an existing directory others can read, and leaves its mode alone', () => {
    const target = path.join(dir, 'shared');
    mkdirSync(target);
    chmodSync(target, 0o755);
    expect(prepareDataDir(target).warning).toMatch(/mode 755; 700 keeps the store and keys private/);
    expect(statSync(target).mode & 0o777).toBe(0o755);
  });

  it.each([
    [
      'a path below a file',
      (base: string) => path.join(writeFile(base), 'data'),
      /is not a writable directory \(ENOTDIR\)/,
    ],
    ['a file', (base: string) => writeFile(base), /exists and is not a directory/],
  ])('refuses %s, naming POSTERN_DATA_DIR', (_name, makePath, message) => {
    const target = makePath(dir);
    expect(() => prepareDataDir(target)).toThrow(ConfigError);
    expect(() => prepareDataDir(target)).toThrow(message);
    expect(() => prepareDataDir(target)).toThrow(/^POSTERN_DATA_DIR: /);
  });
});

function writeFile(base: string): string {
  const file = path.join(base, 'plain-file');
  writeFileSync(file, '');
  return file;
}
