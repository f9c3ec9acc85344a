import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { bearerMatches, startMetricsListener, type MetricsListener } from './metrics-listener.js';

const TOKEN = 'a-scrape-token-of-some-length';
const source = { scrape: () => Promise.resolve({ contentType: 'text/plain; version=0.0.4', body: 'postern_up 1\n' }) };

describe('the metrics listener with a bearer token', () => {
  let listener: MetricsListener | undefined;
  afterEach(async () => {
    await listener?.close();
    listener = undefined;
  });

  const get = async (path: string, authorization?: string) => {
    listener ??= await startMetricsListener(
      { host: '127.0.0.1', port: 0, token: TOKEN },
      source,
      pino({ level: 'silent' }),
    );
    return fetch(`http://127.0.0.1:${listener.port}${path}`, {
      headers: authorization === undefined ? {} : { authorization },
    });
  };

  it('refuses a scrape without the token, or with a wrong one, and asks for a bearer token', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, 'Bearer ']) {
      const response = await get('/metrics', authorization);
      expect(response.status, String(authorization)).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="postern-metrics"');
      expect(await response.text()).not.toContain('postern_up');
    }
  });

  it('serves the metrics with the token', async () => {
    const response = await get('/metrics', `Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('postern_up 1\n');
  });

  it('serves nothing else, and only GET and HEAD', async () => {
    expect((await get('/', `Bearer ${TOKEN}`)).status).toBe(404);
    expect((await get('/metrics/x', `Bearer ${TOKEN}`)).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${listener?.port ?? 0}/metrics`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(post.status).toBe(405);
  });
});

describe('bearerMatches', () => {
  it('takes exactly the token, nothing shorter, longer or empty', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`Bearer ${TOKEN.slice(1)}`, TOKEN)).toBe(false);
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
    expect(bearerMatches('Bearer  ', TOKEN)).toBe(false);
  });
});
