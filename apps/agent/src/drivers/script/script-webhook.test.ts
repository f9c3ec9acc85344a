import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AgentKnocOf } from '@postern/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import { startLoopbackServer, type Handler, type LoopbackServer } from '../../../test/support/loopback-server.js';
import type { DriverEntry } from '../driver.js';
import { ScriptDriver } from './script-driver.js';
import { webhookSignature } from './script-webhook.js';

const SECRET = 'webhook-secret-0123456789';
const ENTRY: DriverEntry = { ip: '203.0.113.7', ttlSeconds: 600, userName: 'alice' };

let certificate: { key: string; cert: string };
let dir: string;
let caFile: string;
const servers: LoopbackServer[] = [];

beforeAll(() => {
  certificate = selfSignedCertificate();
  dir = mkdtempSync(path.join(os.tmpdir(), 'postern-webhook-'));
  caFile = path.join(dir, 'ca.pem');
  writeFileSync(caFile, certificate.cert);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTPS receiver on 127.0.0.1 with the test's self-signed certificate; `received` fills as calls come. */
async function receiver(answer: Handler = (_req, res) => res.writeHead(204).end(), tls = true) {
  const received: Received[] = [];
  const server = await startLoopbackServer(
    (req, res, body) => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      answer(req, res, body);
    },
    tls ? certificate : undefined,
  );
  servers.push(server);
  return { url: server.url, received };
}

function driver(options: { caFile?: string | null; timeoutSeconds?: number } = {}) {
  return new ScriptDriver({
    enabled: true,
    directory: dir,
    timeoutSeconds: options.timeoutSeconds ?? 5,
    caFile: options.caFile === undefined ? caFile : options.caFile,
    logger: memoryLogger().logger,
  });
}

function knoc(command: string, secret = SECRET): AgentKnocOf<'script'> {
  return {
    aclId: 'acl-1',
    name: 'Office VPN',
    url: '',
    backendId: 'backend-1',
    backendType: 'script',
    backend: { Command: command, WebhookSecret: secret, EnvVars: [] },
    acl: {
      Name: 'office_vpn',
      EnvVars: [
        { Name: 'FW_HOST', Value: 'fw.example.com', Sensitive: false },
        { Name: 'FW_TOKEN', Value: 'tok-sensitive-1', Sensitive: true },
      ],
    },
  };
}

describe('script backend in webhook mode', () => {
  it('POSTs the knoc_* values and the variables as JSON, signed over the exact body', async () => {
    const hook = await receiver();

    const outcomes = await driver().apply(knoc(`${hook.url}/hooks/grant?src=postern`), [ENTRY]);

    expect(outcomes).toEqual([{ ip: ENTRY.ip, ok: true, error: '' }]);
    const [call] = hook.received;
    expect(call?.method).toBe('POST');
    expect(call?.url).toBe('/hooks/grant?src=postern');
    expect(call?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(call?.body ?? '')).toEqual({
      knoc_action: 'add',
      knoc_aclname: 'office_vpn',
      knoc_username: 'alice',
      knoc_cidr: '203.0.113.7/32',
      knoc_ipaddr: '203.0.113.7',
      FW_HOST: 'fw.example.com',
      FW_TOKEN: 'tok-sensitive-1',
    });
    // What a receiver does: HMAC-SHA256 of the raw body with the shared secret.
    const expected = `sha256=${createHmac('sha256', SECRET)
      .update(call?.body ?? '')
      .digest('hex')}`;
    expect(call?.headers['x-postern-signature']).toBe(expected);
    expect(webhookSignature(SECRET, Buffer.from(call?.body ?? ''))).toBe(expected);
    // The secret and sensitive values travel in the body only.
    const visible = `${call?.url} ${JSON.stringify(call?.headers)}`;
    expect(visible).not.toContain(SECRET);
    expect(visible).not.toContain('tok-sensitive-1');
  });

  it('sends knoc_action remove for a removal', async () => {
    const hook = await receiver();

    await driver().remove(knoc(hook.url), [ENTRY]);

    expect(JSON.parse(hook.received[0]?.body ?? '{}')).toMatchObject({ knoc_action: 'remove' });
  });

  it('fails the entry with the status of a non-2xx answer, sensitive values redacted', async () => {
    const hook = await receiver((_req, res) => res.writeHead(500).end('cannot reach tok-sensitive-1'));

    const [outcome] = await driver().apply(knoc(hook.url), [ENTRY]);

    expect(outcome).toEqual({ ip: ENTRY.ip, ok: false, error: 'webhook answered HTTP 500: cannot reach [redacted]' });
  });

  it('marks a 403 as permanent: sending it again cannot help', async () => {
    const hook = await receiver((_req, res) => res.writeHead(403).end());

    const [outcome] = await driver().apply(knoc(hook.url), [ENTRY]);

    expect(outcome).toEqual({ ip: ENTRY.ip, ok: false, error: 'webhook answered HTTP 403', permanent: true });
  });

  it('does not follow a redirect', async () => {
    const elsewhere = await receiver();
    const hook = await receiver((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/other` }).end());

    const [outcome] = await driver().apply(knoc(hook.url), [ENTRY]);

    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toBe('webhook answered HTTP 307 (a redirect; redirects are not followed)');
    expect(elsewhere.received).toEqual([]);
  });

  it('gives up a webhook that does not answer within the timeout', async () => {
    const hook = await receiver(() => undefined);

    const [outcome] = await driver({ timeoutSeconds: 1 }).apply(knoc(hook.url), [ENTRY]);

    expect(outcome).toEqual({ ip: ENTRY.ip, ok: false, error: 'webhook did not answer within 1 s' });
    expect(hook.received).toHaveLength(1);
  });

  it("refuses a certificate the system and the agent's caFile do not trust", async () => {
    const hook = await receiver();

    const [outcome] = await driver({ caFile: null }).apply(knoc(hook.url), [ENTRY]);

    expect(outcome?.ok).toBe(false);
    expect(outcome?.error).toMatch(/^webhook https:\/\/127\.0\.0\.1:\d+: its TLS certificate is not trusted/);
    expect(hook.received).toEqual([]);
  });

  it('allows plain http to loopback only, and refuses a webhook without a secret', async () => {
    const local = await receiver(undefined, false);

    expect((await driver().apply(knoc(local.url), [ENTRY]))[0]?.ok).toBe(true);
    await expect(driver().apply(knoc('http://hooks.example.com/grant'), [ENTRY])).rejects.toThrow(
      'the webhook URL must use https (plain http only to this host: localhost, 127.0.0.1 or ::1)',
    );
    const withPassword = driver().apply(knoc('https://user:pw@hooks.example.com/'), [ENTRY]);
    await expect(withPassword).rejects.toThrow('the webhook URL must not carry a user name or password');
    await expect(withPassword).rejects.not.toThrow(/pw/);
    await expect(driver().apply(knoc(local.url, ''), [ENTRY])).rejects.toThrow(/has no WebhookSecret to sign with/);
  });
});
