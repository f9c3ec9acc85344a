import { KNOCPROXY_COOKIE_MAX_AGE_SECONDS } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import {
  clientResponseHeaders,
  proxyCookie,
  upstreamRequestHeaders,
  withoutHopByHop,
  withoutProxyCookie,
} from './proxy-headers.js';

describe('proxyCookie', () => {
  it("carries the spec's attributes: 25200 s, HttpOnly, Secure, SameSite=Lax", () => {
    const attributes = proxyCookie().split('; ');

    expect(KNOCPROXY_COOKIE_MAX_AGE_SECONDS).toBe(25_200);
    expect(attributes[0]).toBe('postern_knocproxy=1');
    expect(attributes).toEqual(
      expect.arrayContaining(['Max-Age=25200', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']),
    );
  });
});

describe('withoutHopByHop', () => {
  it('drops connection-level headers and the ones Connection names', () => {
    const kept = withoutHopByHop({
      connection: 'keep-alive, x-session-hint',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      te: 'trailers',
      upgrade: 'h2c',
      'proxy-authorization': 'Basic abc',
      'x-session-hint': 'per-connection',
      accept: 'text/html',
      'content-type': 'text/plain',
    });

    expect(kept).toEqual({ accept: 'text/html', 'content-type': 'text/plain' });
  });
});

describe('withoutProxyCookie', () => {
  it("removes only the proxy's own cookie", () => {
    expect(withoutProxyCookie('a=1; postern_knocproxy=1; b=2')).toBe('a=1; b=2');
    expect(withoutProxyCookie('postern_knocproxy=1')).toBeUndefined();
    expect(withoutProxyCookie(undefined)).toBeUndefined();
  });
});

describe('upstreamRequestHeaders', () => {
  it("sets the upstream's Host and X-Forwarded-* from what the proxy saw, replacing the client's claims", () => {
    const headers = upstreamRequestHeaders(
      {
        host: 'proxy.example.com:8443',
        'x-forwarded-for': '198.51.100.99',
        forwarded: 'for=198.51.100.99',
        cookie: 'session=abc; postern_knocproxy=1',
        accept: '*/*',
      },
      'intranet.internal:8080',
      { chain: ['203.0.113.7'], proto: 'https', host: 'proxy.example.com:8443' },
    );

    expect(headers).toEqual({
      host: 'intranet.internal:8080',
      'x-forwarded-for': '203.0.113.7',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'proxy.example.com:8443',
      cookie: 'session=abc',
      accept: '*/*',
    });
  });
});

describe('clientResponseHeaders', () => {
  it("keeps the upstream's cookies and adds the proxy cookie", () => {
    const headers = clientResponseHeaders({
      'set-cookie': ['app=1; Path=/'],
      'content-type': 'text/html',
      connection: 'close',
    });

    expect(headers['set-cookie']).toEqual(['app=1; Path=/', proxyCookie()]);
    expect(headers.connection).toBeUndefined();
    expect(headers['content-type']).toBe('text/html');
  });
});
