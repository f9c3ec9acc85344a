import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  startLoopbackServer,
  sendJson,
  type Handler,
  type LoopbackServer,
} from '../../../test/support/loopback-server.js';
import { memoryLogger } from '../../../test/support/memory-logger.js';
import { selfSignedCertificate } from '@postern/test-support';
import { SessionLogin } from './auth/session-login.js';
import { staticToken } from './auth/static-token.js';
import { CallBudget, runWithCallBudget, withCallBudget } from './call-budget.js';
import { HttpClient, HttpError, pathSegment, type HttpClientOptions } from './http-client.js';

const TOKEN = 'tok-SECRET-4711';
const servers: LoopbackServer[] = [];
const clients: HttpClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(handler: Handler, tls?: { key: string; cert: string }): Promise<LoopbackServer> {
  const server = await startLoopbackServer(handler, tls);
  servers.push(server);
  return server;
}

/** A client whose retries wait no real time; `delays` records each wait. */
function client(baseUrl: string, options: Partial<HttpClientOptions> = {}) {
  const { logger, lines } = memoryLogger();
  const delays: number[] = [];
  const made = new HttpClient({
    name: 'vendor',
    baseUrl,
    logger,
    auth: staticToken({ token: TOKEN }),
    ...options,
    retry: { sleep: (ms) => (delays.push(ms), Promise.resolve()), random: () => 0.5, ...options.retry },
  });
  clients.push(made);
  return { client: made, lines, delays };
}

async function failure(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('HttpClient', () => {
  it('sends the bearer token and JSON, and checks the answer with zod', async () => {
    const seen: { auth: string | undefined; body: string; url: string | undefined }[] = [];
    const server = await serve((req, res, body) => {
      seen.push({ auth: req.headers.authorization, body, url: req.url });
      sendJson(res, 200, { results: [{ name: 'a' }] });
    });
    const { client: c } = client(`${server.url}/prefix/`);
    const schema = z.object({ results: z.array(z.object({ name: z.string() })) });
    const result = await c.requestParsed(
      { method: 'POST', path: `/api/${pathSegment('kk_10.0.0.0/24')}`, query: { vdom: 'root' }, body: { a: 1 } },
      schema,
    );
    expect(result).toEqual({ ok: true, status: 200, data: { results: [{ name: 'a' }] } });
    expect(seen).toEqual([{ auth: `Bearer ${TOKEN}`, body: '{"a":1}', url: '/prefix/api/kk_10.0.0.0%2F24?vdom=root' }]);

    const wrong = await c.requestParsed({ method: 'GET', path: '/x' }, z.object({ results: z.array(z.number()) }));
    expect(wrong.ok).toBe(false);
    if (!wrong.ok) expect(wrong.error).toMatch(/vendor GET \/x: unexpected answer at results\.0/);
  });

  it('sends a form-encoded body when the call gives a form (XML APIs), and the answer as text', async () => {
    const seen: { type: string | undefined; body: string; url: string | undefined }[] = [];
    const server = await serve((req, res, body) => {
      seen.push({ type: req.headers['content-type'], body, url: req.url });
      res.writeHead(200, { 'content-type': 'application/xml' }).end('<response status="success"/>');
    });
    const { client: c } = client(server.url);
    const answer = await c.request({ method: 'POST', path: '/api/', form: { type: 'op', cmd: '<a b="1 & 2"/>' } });
    expect(answer.body).toBe('<response status="success"/>');
    expect(seen).toEqual([
      {
        type: 'application/x-www-form-urlencoded',
        body: 'type=op&cmd=%3Ca+b%3D%221+%26+2%22%2F%3E',
        url: '/api/',
      },
    ]);
  });

  it('refuses a redirect to another host, and to the same host, without following it', async () => {
    let otherHits = 0;
    const other = await serve((_req, res) => {
      otherHits++;
      sendJson(res, 200, {});
    });
    const server = await serve((req, res) => {
      const location = req.url === '/same' ? '/elsewhere' : `${other.url}/steal?token=${TOKEN}`;
      res.writeHead(302, { location });
      res.end();
    });
    const { client: c, lines } = client(server.url);
    const cross = await failure(c.request({ method: 'GET', path: '/cross' }));
    expect(cross.kind).toBe('redirect');
    expect(cross.message).toContain(`to another host, http://127.0.0.1:${other.port}`);
    const same = await failure(c.request({ method: 'GET', path: '/same' }));
    expect(same.message).toContain('to /elsewhere on the same host');
    expect(otherHits).toBe(0);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('redacts the secrets from error messages and log lines, also when the device echoes them', async () => {
    const server = await serve((req, res) =>
      sendJson(res, 400, { error: `bad token ${String(req.headers.authorization)}`, again: encodeURIComponent(TOKEN) }),
    );
    const { client: c, lines } = client(server.url, { secrets: ['hunter2'] });
    const result = await c.requestParsed({ method: 'GET', path: '/hunter2/x' }, z.unknown());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toContain('HTTP 400');
    expect(result.error).toContain('[redacted]');
    expect(result.error).not.toContain(TOKEN);
    expect(result.error).not.toContain('hunter2');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toMatch(/tok-SECRET|hunter2/);
  });

  it('gives up a call that is not answered within its time limit', async () => {
    const server = await serve(() => undefined);
    const { client: c } = client(server.url, { timeoutMs: 40, retry: { maxAttempts: 1 } });
    const error = await failure(c.request({ method: 'GET', path: '/slow' }));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe('vendor GET /slow: no answer within 40 ms');
  });

  it('retries 429/503 on idempotent calls, honouring Retry-After up to its bound', async () => {
    let calls = 0;
    const server = await serve((_req, res) => {
      calls++;
      if (calls === 1) sendJson(res, 429, {}, { 'retry-after': '120' });
      else if (calls === 2) sendJson(res, 503, {});
      else sendJson(res, 200, { done: true });
    });
    const { client: c, lines } = client(server.url, { retry: { maxRetryAfterMs: 25, baseMs: 10 } });
    const response = await c.request({ method: 'PUT', path: '/x', body: {} });
    expect(response.status).toBe(200);
    expect(calls).toBe(3);
    // Retry-After 120 s cut to its bound; then full jitter (random 0.5) of base·2¹.
    const { delays } = {
      delays: lines.filter((line) => line.includes('will be retried')).map((l) => JSON.parse(l) as { delayMs: number }),
    };
    expect(delays.map((d) => d.delayMs)).toEqual([25, 10]);
  });

  it('never repeats a plain POST that reached the device, but repeats one marked idempotent', async () => {
    let calls = 0;
    const server = await serve((_req, res) => {
      calls++;
      sendJson(res, 503, {});
    });
    const { client: c } = client(server.url, { retry: { maxAttempts: 3 } });
    expect((await c.request({ method: 'POST', path: '/x', body: {} })).status).toBe(503);
    expect(calls).toBe(1);
    expect((await c.request({ method: 'POST', path: '/x', body: {}, idempotent: true })).status).toBe(503);
    expect(calls).toBe(4);
  });

  it('retries a connection that never opened, even for a POST', async () => {
    const server = await serve(() => undefined);
    const url = server.url;
    await server.close();
    servers.length = 0;
    const { client: c, delays } = client(url, { retry: { maxAttempts: 3, baseMs: 4 } });
    const error = await failure(c.request({ method: 'POST', path: '/x', body: {} }));
    expect(error.kind).toBe('network');
    expect(error.sent).toBe(false);
    expect(error.message).toContain('ECONNREFUSED');
    expect(delays).toEqual([2, 4]);
  });

  it('reports a 401 with a static token at once: no renewal, no retry', async () => {
    let calls = 0;
    const server = await serve((_req, res) => {
      calls++;
      sendJson(res, 401, { status: 'error' });
    });
    const { client: c } = client(server.url);
    expect((await c.request({ method: 'GET', path: '/x' })).status).toBe(401);
    expect(calls).toBe(1);
  });

  it('logs in once after a 401 and tries once more; concurrent calls share that one login', async () => {
    let current = 'session-1';
    let logins = 0;
    let refuseAll = false;
    const server = await serve((req, res) => {
      if (!refuseAll && req.headers['x-token'] === current) sendJson(res, 200, { ok: true });
      else sendJson(res, 401, {});
    });
    const session = new SessionLogin({
      login: async () => {
        logins++;
        await new Promise((resolve) => setTimeout(resolve, 10));
        return { token: current, expiresInMs: 60 * 60_000 };
      },
      headers: (token) => ({ 'x-token': token }),
      secrets: ['pw'],
    });
    const { client: c, lines } = client(server.url, { auth: session });
    expect((await c.request({ method: 'GET', path: '/a' })).status).toBe(200);
    expect(logins).toBe(1);
    current = 'session-2'; // the device dropped the session
    const answers = await Promise.all([1, 2, 3].map(() => c.request({ method: 'GET', path: '/b' })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(logins).toBe(2);
    // A device that refuses even the new session: one login more, then the 401 stands.
    current = 'session-3';
    refuseAll = true;
    expect((await c.request({ method: 'GET', path: '/c' })).status).toBe(401);
    expect(logins).toBe(3);
    expect(lines.join('\n')).not.toMatch(/session-\d/);
  });

  it('applies Insecure to its own backend only', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { tls: true }), selfSignedCertificate());
    const { client: insecure } = client(server.url, { insecure: true });
    const { client: strict } = client(server.url);
    const [relaxed, refused] = await Promise.all([
      insecure.request({ method: 'GET', path: '/x' }),
      failure(strict.request({ method: 'GET', path: '/x' })),
    ]);
    expect(relaxed.body).toEqual({ tls: true });
    expect(refused.kind).toBe('tls');
    expect(refused.message).toMatch(/self.signed/i);
  });

  it('accepts only http and https URLs without credentials', () => {
    const { logger } = memoryLogger();
    expect(() => new HttpClient({ name: 'v', baseUrl: 'file:///etc/passwd', logger })).toThrow(/only http and https/);
    expect(() => new HttpClient({ name: 'v', baseUrl: 'https://u:p@fw.example', logger })).toThrow(/credentials/);
  });
});

describe('HttpClient under a call budget', () => {
  it('gives up a try in flight when the budget is spent, and says so', async () => {
    let received = 0;
    const server = await serve(() => {
      received++; // never answered
    });
    const { client: c, delays } = client(server.url, { timeoutMs: 60_000 });
    const error = await failure(withCallBudget(100, () => c.request({ method: 'GET', path: '/hang' })));
    expect(error.kind).toBe('timeout');
    expect(error.permanent).toBe(false);
    expect(error.message).toBe('vendor GET /hang: no answer within 100 ms (call budget spent)');
    // One try: no retry fits in a spent budget.
    expect(received).toBe(1);
    expect(delays).toEqual([]);
  });

  it('sends nothing once the budget is spent', async () => {
    let received = 0;
    const server = await serve((_req, res) => {
      received++;
      sendJson(res, 200, {});
    });
    const { client: c } = client(server.url);
    let later: Promise<unknown> = Promise.resolve();
    await withCallBudget(1_000, () => {
      // Started in the call, run after it returned (its budget is closed then).
      later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => c.request({ method: 'GET', path: '/late' }));
      return Promise.resolve();
    });
    const error = await failure(later);
    expect(error.message).toMatch(/call budget spent/);
    expect(received).toBe(0);
  });

  it('an answer starts the budget again, so a device that keeps answering is not cut short', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, {}));
    const { client: c } = client(server.url);
    // The budget's clock moves only when the test says: 150 ms of 200 pass before every call.
    let now = 0;
    const budget = new CallBudget(200, () => now);
    const statuses = await runWithCallBudget(budget, async () => {
      const seen: number[] = [];
      for (let i = 0; i < 5; i++) {
        now += 150;
        seen.push((await c.request({ method: 'GET', path: `/poll/${i}` })).status);
      }
      return seen;
    });
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });

  it('retries while the budget lasts, then stops with the budget’s error', async () => {
    let received = 0;
    const server = await serve(() => {
      received++; // never answered
    });
    const { client: c } = client(server.url, {
      timeoutMs: 20,
      retry: { maxAttempts: 1000, sleep: () => Promise.resolve() },
    });
    const error = await failure(withCallBudget(300, () => c.request({ method: 'GET', path: '/hang' })));
    expect(error.message).toBe('vendor GET /hang: no answer within 300 ms (call budget spent)');
    expect(received).toBeGreaterThan(1);
    expect(received).toBeLessThan(1000);
  });

  it('says which refusals are permanent', async () => {
    const server = await serve((req, res) => sendJson(res, Number(req.url?.slice(1)), { message: 'no' }));
    const { client: c } = client(server.url);
    const schema = z.object({});
    const verdicts: Record<number, boolean> = {};
    for (const status of [400, 401, 403, 404, 409, 422, 429, 500, 503]) {
      const result = await c.requestParsed({ method: 'POST', path: `/${status}` }, schema);
      verdicts[status] = !result.ok && result.permanent;
    }
    expect(verdicts).toEqual({
      400: true,
      401: true,
      403: true,
      404: true,
      409: false,
      422: true,
      429: false,
      500: false,
      503: false,
    });
  });
});
