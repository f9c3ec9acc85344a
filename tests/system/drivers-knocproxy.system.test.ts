import { mkdtemp, rm } from 'node:fs/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentKnocOf } from '@postern/protocol';
import { freePort, selfSignedCertificate } from '@postern/test-support';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { DriverEntry } from '../../apps/agent/src/drivers/index.js';
import { KnocproxyDriver } from '../../apps/agent/src/drivers/knocproxy/knocproxy-driver.js';
import { systemCommand } from './support/netns.js';
import { requireTool } from './support/requirements.js';

/**
 * knocproxy in front of a tiny upstream HTTP server (which echoes what it received and speaks
 * WebSocket). Clients choose their source address among 127.0.0.0/8 with `localAddress`: Linux
 * routes the whole block to loopback, so 127.0.0.2 and 127.0.0.3 are two different clients.
 */
const missing = process.platform === 'linux' ? null : 'Linux (127.0.0.0/8 on loopback)';
const OPENSSL = systemCommand('openssl');
const silent = pino({ level: 'silent' });

/** What the upstream saw of each request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let upstream: http.Server;
let upstreamUrl: string;
const seen: Seen[] = [];
let proxy: KnocproxyDriver;
let proxyPort: number;

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'app=1; Path=/' });
      res.end(`upstream got ${req.method} ${req.url} ${body}`);
    });
  });
  const sockets = new WebSocketServer({ server: upstream });
  sockets.on('connection', (socket) => socket.on('message', (data) => socket.send(`echo ${text(data)}`)));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/app`;
});
afterAll(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});
beforeEach(async (context) => {
  requireTool(context, missing);
  seen.length = 0;
  proxy = new KnocproxyDriver({ tls: null, logger: silent });
  proxyPort = await freePort();
});
afterEach(async () => {
  await proxy.close();
});

function knoc(port = proxyPort, aclId = 'acl-proxy'): AgentKnocOf<'knocproxy'> {
  return {
    aclId,
    name: 'Wiki',
    url: upstreamUrl,
    backendId: 'backend-proxy',
    backendType: 'knocproxy',
    backend: { Protocol: 'tcp', Address: `127.0.0.1:${port}` },
    acl: { Name: 'wiki' },
  };
}

const entry = (ip: string): DriverEntry => ({ ip, ttlSeconds: 300, userName: 'alice' });

/** A WebSocket message as text, whichever shape ws delivered it in. */
function text(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One request to the proxy from `from` (a 127.0.0.x source address). */
function request(
  from: string,
  options: { method?: string; path?: string; body?: string; port?: number; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: options.port ?? proxyPort,
        localAddress: from,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers ?? {},
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('knocproxy driver', () => {
  it('forwards a granted client to the knoc URL and sets the proxy cookie with the spec’s attributes', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);

    const answer = await request('127.0.0.2', { path: '/page?q=1' });

    expect(answer.status).toBe(200);
    expect(answer.body).toBe('upstream got GET /app/page?q=1 ');
    const cookies = answer.headers['set-cookie'] ?? [];
    expect(cookies).toContain('app=1; Path=/');
    const proxyCookie = cookies.find((cookie) => cookie.startsWith('postern_knocproxy='));
    expect(proxyCookie?.split('; ')).toEqual(
      expect.arrayContaining(['Max-Age=25200', 'HttpOnly', 'Secure', 'SameSite=Lax']),
    );
  });

  it('tells the upstream who the client is with X-Forwarded-For/-Proto/-Host, replacing what the client claimed', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);

    await request('127.0.0.2', {
      headers: { 'x-forwarded-for': '198.51.100.66', cookie: 'postern_knocproxy=1; session=abc' },
    });

    const [forwarded] = seen;
    expect(forwarded?.headers['x-forwarded-for']).toBe('127.0.0.2');
    expect(forwarded?.headers['x-forwarded-proto']).toBe('http');
    expect(forwarded?.headers['x-forwarded-host']).toBe(`127.0.0.1:${proxyPort}`);
    expect(forwarded?.headers.host).toBe(new URL(upstreamUrl).host);
    expect(forwarded?.headers.cookie).toBe('session=abc');
  });

  it('answers 403 with a short page to an address without a grant, and never reaches the upstream', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);

    const answer = await request('127.0.0.3');

    expect(answer.status).toBe(403);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body).toContain('Access not granted');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(seen).toEqual([]);
  });

  it('closes the door when the grant is removed', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);
    expect((await request('127.0.0.2')).status).toBe(200);

    await proxy.remove(knoc(), [entry('127.0.0.2')]);

    expect((await request('127.0.0.2')).status).toBe(403);
    expect(await proxy.list(knoc())).toEqual([]);
  });

  it('streams a request body to the upstream', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);
    const body = 'x'.repeat(256 * 1024);

    const answer = await request('127.0.0.2', { method: 'POST', path: '/upload', body });

    expect(answer.status).toBe(200);
    expect(seen[0]?.body).toBe(body);
  });

  it('listens as soon as the knoc is configured, so visitors without a grant see the 403 page', async () => {
    await proxy.configure([knoc()]);

    expect((await request('127.0.0.2')).status).toBe(403);
  });

  it('relays a WebSocket for a granted client and refuses one for anybody else', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);

    const granted = new WebSocket(`ws://127.0.0.1:${proxyPort}/socket`, { localAddress: '127.0.0.2' });
    const reply = await new Promise<string>((resolve, reject) => {
      granted.on('open', () => granted.send('hello'));
      granted.on('message', (data) => resolve(text(data)));
      granted.on('error', reject);
    });
    granted.close();
    expect(reply).toBe('echo hello');

    const refused = new WebSocket(`ws://127.0.0.1:${proxyPort}/socket`, { localAddress: '127.0.0.3' });
    const status = await new Promise<number>((resolve) => {
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      refused.on('error', () => resolve(-1));
    });
    expect(status).toBe(403);
  });

  it('lists the granted addresses', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2'), entry('2001:DB8::7')]);

    expect((await proxy.list(knoc())).sort()).toEqual(['127.0.0.2', '2001:db8::7']);
  });

  it('refuses a second knoc on an address another knoc already uses', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);

    await expect(proxy.apply(knoc(proxyPort, 'acl-other'), [entry('127.0.0.3')])).rejects.toThrow(
      'already serves knoc acl-proxy',
    );
    expect((await request('127.0.0.3')).status).toBe(403);
  });

  it('stops listening when the knoc is flushed, and when the driver closes', async () => {
    await proxy.apply(knoc(), [entry('127.0.0.2')]);
    await proxy.flush(knoc());
    await expect(request('127.0.0.2')).rejects.toThrow('ECONNREFUSED');

    await proxy.apply(knoc(), [entry('127.0.0.2')]);
    await proxy.close();
    await expect(request('127.0.0.2')).rejects.toThrow('ECONNREFUSED');
  });

  it('on a unix socket behind a front proxy, admits by the last X-Forwarded-For hop', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-knocproxy-unix-'));
    try {
      const socketPath = path.join(dir, 'proxy.sock');
      await proxy.apply({ ...knoc(), backend: { Protocol: 'unix', Address: socketPath } }, [entry('203.0.113.7')]);
      const viaSocket = (forwardedFor: string | null) =>
        new Promise<number>((resolve, reject) => {
          const headers: Record<string, string> = { 'x-forwarded-proto': 'https' };
          if (forwardedFor !== null) headers['x-forwarded-for'] = forwardedFor;
          http
            .get({ socketPath, path: '/', headers, agent: false }, (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            })
            .on('error', reject);
        });

      expect(await viaSocket('198.51.100.1, 203.0.113.7')).toBe(200);
      expect(seen[0]?.headers['x-forwarded-for']).toBe('198.51.100.1, 203.0.113.7');
      expect(seen[0]?.headers['x-forwarded-proto']).toBe('https');
      expect(await viaSocket('203.0.113.7, 198.51.100.1')).toBe(403);
      expect(await viaSocket(null)).toBe(403);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails the call when its address is taken by another program', async () => {
    const squatter = http.createServer();
    await new Promise<void>((resolve) => squatter.listen(proxyPort, '127.0.0.1', resolve));
    try {
      await expect(proxy.apply(knoc(), [entry('127.0.0.2')])).rejects.toThrow(
        `knocproxy cannot listen on 127.0.0.1:${proxyPort}`,
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }

    await proxy.apply(knoc(), [entry('127.0.0.2')]);
    expect((await request('127.0.0.2')).status).toBe(200);
  });

  it('answers 502 when the upstream is down', async () => {
    const downPort = await freePort();
    await proxy.apply({ ...knoc(), url: `http://127.0.0.1:${downPort}/` }, [entry('127.0.0.2')]);

    const answer = await request('127.0.0.2');

    expect(answer.status).toBe(502);
    expect(answer.body).toContain('Service unavailable');
  });

  it('serves HTTPS with the configured certificate', async (context) => {
    requireTool(context, OPENSSL === null ? 'openssl (apt-get install openssl)' : null);
    const { cert, key } = selfSignedCertificate();
    const tlsProxy = new KnocproxyDriver({ tls: { cert: Buffer.from(cert), key: Buffer.from(key) }, logger: silent });
    try {
      await tlsProxy.apply(knoc(), [entry('127.0.0.2')]);
      const answer = await new Promise<Answer>((resolve, reject) => {
        https
          .get({ host: '127.0.0.1', port: proxyPort, localAddress: '127.0.0.2', ca: cert, agent: false }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' }));
          })
          .on('error', reject);
      });
      expect(answer.status).toBe(200);
      expect(seen[0]?.headers['x-forwarded-proto']).toBe('https');
    } finally {
      await tlsProxy.close();
    }
  });
});
