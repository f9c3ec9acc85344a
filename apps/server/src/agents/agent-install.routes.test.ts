import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCodes, POSTERN_VERSION } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { installErrorHandler } from '../http/error-handler.js';
import {
  DEFAULT_AGENT_DISTRIBUTION_PATHS,
  DEFAULT_CLIENT_DISTRIBUTION_PATHS,
  loadAgentDistribution,
} from './agent-distribution.js';
import {
  AGENT_BUNDLE_SHA256_HEADER,
  CLIENT_BUNDLE_SHA256_HEADER,
  registerAgentInstallRoutes,
} from './agent-install.routes.js';
import { INSTALL_PLACEHOLDERS, renderInstallScript, safeServerUrl } from './install-script.js';

const BUNDLE = Buffer.from('#!/usr/bin/env node\nconsole.log("a stand-in agent bundle");\n');
const BUNDLE_SHA256 = createHash('sha256').update(BUNDLE).digest('hex');
const CLIENT_BUNDLE = Buffer.from('#!/usr/bin/env node\nconsole.log("a stand-in client bundle");\n');
const CLIENT_BUNDLE_SHA256 = createHash('sha256').update(CLIENT_BUNDLE).digest('hex');

/** The two programs the routes hand out: where each is served and what the stand-in bundle is. */
const PROGRAMS = [
  {
    program: 'agent',
    script: '/api/agent/install.sh',
    bundle: '/api/agent/postern-agent.mjs',
    header: AGENT_BUNDLE_SHA256_HEADER,
    bytes: BUNDLE,
    sha256: BUNDLE_SHA256,
  },
  {
    program: 'client',
    script: '/api/agent/install-client.sh',
    bundle: '/api/agent/postern-client.mjs',
    header: CLIENT_BUNDLE_SHA256_HEADER,
    bytes: CLIENT_BUNDLE,
    sha256: CLIENT_BUNDLE_SHA256,
  },
] as const;

/** The embedded default of the served script. */
function embeddedServerUrl(script: string): string | undefined {
  return /^DEFAULT_SERVER_URL='([^']*)'$/m.exec(script)?.[1];
}

describe('install script rendering', () => {
  it.each([
    ['https://portal.example', 'https://portal.example'],
    ['https://Portal.Example:8443', 'https://portal.example:8443'],
    ['https://portal.example:443', 'https://portal.example'],
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080'],
    ['http://[::1]:8080', 'http://[::1]:8080'],
    ['https://xn--bcher-kva.example', 'https://xn--bcher-kva.example'],
  ])('accepts %s as %s', (value, expected) => {
    expect(safeServerUrl(value)).toBe(expected);
  });

  it.each([
    ["https://portal.example'$(reboot)"],
    ['https://portal.example/`id`'],
    ['https://portal.example/path'],
    ['https://portal.example?x=1'],
    ['https://portal.example#x'],
    ['https://user:secret@portal.example'],
    ['https://portal.example;reboot'],
    ['https://portal .example'],
    ['https://portal.example\n'],
    ['https://por\ntal.example'],
    ['https://bücher.example'],
    ['ftp://portal.example'],
    ['javascript:alert(1)'],
    ['portal.example'],
    [''],
  ])('refuses %j', (value) => {
    expect(safeServerUrl(value)).toBeNull();
  });

  it.each([
    ['agent', DEFAULT_AGENT_DISTRIBUTION_PATHS, INSTALL_PLACEHOLDERS.bundleSha256],
    ['client', DEFAULT_CLIENT_DISTRIBUTION_PATHS, INSTALL_PLACEHOLDERS.clientBundleSha256],
  ] as const)(
    'fills every placeholder of the real %s template, and the result is valid sh',
    (_, paths, checksumPlaceholder) => {
      const template = loadAgentDistribution(paths).installTemplate();
      expect(template).not.toBeNull();
      expect(template).toContain(checksumPlaceholder);
      const script = renderInstallScript(template ?? '', {
        serverUrl: 'https://portal.example',
        bundleSha256: BUNDLE_SHA256,
        version: POSTERN_VERSION,
        checksumPlaceholder,
      });
      for (const placeholder of Object.values(INSTALL_PLACEHOLDERS)) expect(script).not.toContain(placeholder);
      expect(embeddedServerUrl(script)).toBe('https://portal.example');
      expect(script).toContain(`BUNDLE_SHA256='${BUNDLE_SHA256}'`);
      expect(script).toContain(`POSTERN_VERSION='${POSTERN_VERSION}'`);
      execFileSync('sh', ['-n'], { input: script });
    },
  );

  it('renders no server URL as an empty default, and the result is valid sh', () => {
    const template = loadAgentDistribution(DEFAULT_AGENT_DISTRIBUTION_PATHS).installTemplate() ?? '';
    const script = renderInstallScript(template, { serverUrl: null, bundleSha256: BUNDLE_SHA256, version: '1.0.0' });
    expect(embeddedServerUrl(script)).toBe('');
    expect(script).not.toContain('@POSTERN_');
    execFileSync('sh', ['-n'], { input: script });
  });

  it.each([
    ['server URL', { serverUrl: "https://x'; reboot; '" }],
    ['checksum', { bundleSha256: "abc'; reboot" }],
    ['version', { version: "1.0'; reboot; '" }],
  ])('throws rather than render an unsafe %s', (_case, override) => {
    const values = { serverUrl: 'https://portal.example', bundleSha256: BUNDLE_SHA256, version: '1.0.0', ...override };
    expect(() => renderInstallScript("X='@POSTERN_SERVER_URL@'", values)).toThrow();
  });
});

describe('install routes', () => {
  const t = useTestApp('sqlite');
  let cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });

  /**
   * The install routes alone on an app, with a bundle in a temporary directory (or none), on the
   * test app's context with `publicUrl` set (the routes read it per request; the reset restores it).
   */
  async function serve(options: { publicUrl?: string | null; built?: boolean; trustProxy?: boolean } = {}) {
    t.ctx.config.publicUrl = options.publicUrl ?? null;
    const dir = mkdtempSync(path.join(tmpdir(), 'postern-agent-dist-'));
    cleanups.push(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const bundleFile = path.join(dir, 'postern-agent.mjs');
    const clientBundleFile = path.join(dir, 'postern-client.mjs');
    if (options.built ?? true) {
      writeFileSync(bundleFile, BUNDLE);
      writeFileSync(clientBundleFile, CLIENT_BUNDLE);
    }
    const app = Fastify({ trustProxy: options.trustProxy ?? false });
    cleanups.push(() => app.close());
    installErrorHandler(app);
    registerAgentInstallRoutes(app, t.ctx, {
      agent: loadAgentDistribution({ ...DEFAULT_AGENT_DISTRIBUTION_PATHS, bundleFile }),
      client: loadAgentDistribution({ ...DEFAULT_CLIENT_DISTRIBUTION_PATHS, bundleFile: clientBundleFile }),
    });
    return app;
  }

  it('serves the script as a shell script with the public URL and the bundle checksum filled in', async () => {
    const server = await serve({ publicUrl: 'https://portal.example' });
    const response = await server.inject({ url: '/api/agent/install.sh', headers: { host: 'ignored.example' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/x-shellscript; charset=utf-8');
    expect(embeddedServerUrl(response.body)).toBe('https://portal.example');
    expect(response.body).toContain(`BUNDLE_SHA256='${BUNDLE_SHA256}'`);
    expect(response.body).not.toContain('@POSTERN_');
  });

  /** Headers a hostile proxy, a poisoned cache or a crafted link could put on the request. */
  const HOSTILE = {
    host: 'evil.example:8443',
    'x-forwarded-host': 'attacker.example',
    'x-forwarded-proto': 'https',
  };

  it.each(PROGRAMS)(
    'serves the $program script with no default server when no public URL is set, whatever the request says',
    async ({ script }) => {
      for (const trustProxy of [false, true]) {
        const server = await serve({ trustProxy });
        const response = await server.inject({ url: script, headers: HOSTILE });
        expect(response.statusCode).toBe(200);
        expect(embeddedServerUrl(response.body)).toBe('');
        expect(response.body).not.toContain('evil.example');
        expect(response.body).not.toContain('attacker.example');
        expect(response.body).not.toContain('@POSTERN_');
      }
    },
  );

  it.each(PROGRAMS)(
    'serves the $program script with the public URL, never a hostile Host or X-Forwarded-Host',
    async ({ script }) => {
      for (const trustProxy of [false, true]) {
        const server = await serve({ publicUrl: 'https://portal.example', trustProxy });
        const response = await server.inject({ url: script, headers: HOSTILE });
        expect(response.statusCode).toBe(200);
        expect(embeddedServerUrl(response.body)).toBe('https://portal.example');
        expect(response.body).not.toContain('evil.example');
        expect(response.body).not.toContain('attacker.example');
      }
    },
  );

  it.each([["portal.example'$(reboot)"], ['portal.example;id'], ['portal.example`id`'], ['a b']])(
    'serves the same script whatever the Host, even %j, which it never embeds',
    async (host) => {
      const server = await serve();
      const plain = await server.inject({ url: '/api/agent/install.sh', headers: { host: 'portal.example' } });
      const response = await server.inject({ url: '/api/agent/install.sh', headers: { host } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(plain.body);
    },
  );

  it('refuses to serve a script for a public URL that is not a plain origin, with a 500 that shows nothing', async () => {
    const server = await serve({ publicUrl: "https://portal.example/'$(reboot)'" });
    const response = await server.inject({ url: '/api/agent/install.sh' });
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('reboot');
  });

  it.each(PROGRAMS)(
    'serves the $program bundle with its checksum as ETag and header, and 304 for a matching If-None-Match',
    async ({ bundle, header, bytes, sha256 }) => {
      const server = await serve();
      const response = await server.inject({ url: bundle });
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.equals(bytes)).toBe(true);
      expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(response.headers.etag).toBe(`"${sha256}"`);
      expect(response.headers[header]).toBe(sha256);
      const again = await server.inject({ url: bundle, headers: { 'if-none-match': `"${sha256}"` } });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
    },
  );

  it('fills the client script with the client bundle’s checksum, not the agent’s', async () => {
    const server = await serve({ publicUrl: 'https://portal.example' });
    const response = await server.inject({ url: '/api/agent/install-client.sh' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(CLIENT_BUNDLE_SHA256);
    expect(response.body).not.toContain(BUNDLE_SHA256);
    expect(embeddedServerUrl(response.body)).toBe('https://portal.example');
    expect(response.body).not.toContain('@POSTERN_');
  });

  it.each(PROGRAMS.flatMap(({ program, script, bundle }) => [script, bundle].map((url) => ({ program, url }))))(
    'answers $url with 404 and a clear reason when the $program bundle is not built',
    async ({ program, url }) => {
      const server = await serve({ built: false });
      const response = await server.inject({ url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        Err: ErrorCodes.notFound,
        Extra: `the ${program} bundle has not been built on this server; run npm run build`,
      });
    },
  );

  it('is registered on the real app without authentication', async () => {
    for (const url of PROGRAMS.flatMap((program) => [program.script, program.bundle])) {
      expect(t.app.hasRoute({ method: 'GET', url })).toBe(true);
      const response = await t.app.inject({ url });
      expect([200, 404]).toContain(response.statusCode);
    }
  });
});
