import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { loadWebApp } from './web-app.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient } from '../test-support/admin-client.js';
import { PASSWORD_TEST_TIMEOUT_MS } from '../test-support/factories.js';

describe('envelope, errors and statuses (sqlite)', () => {
  const webDir = mkdtempSync(path.join(tmpdir(), 'postern-web-'));
  const t = useTestApp('sqlite', { webApp: loadWebApp(webDir) });

  // The build as each test finds it: a test that rebuilds it leaves the next the first build again.
  beforeEach(() => {
    rmSync(webDir, { recursive: true, force: true });
    mkdirSync(path.join(webDir, 'assets'), { recursive: true });
    writeFileSync(
      path.join(webDir, 'index.html'),
      '<!doctype html><title>Postern</title><script src="/assets/app-1.js"></script>',
    );
    writeFileSync(path.join(webDir, 'assets', 'app-1.js'), 'console.log(1)');
    writeFileSync(path.join(webDir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  });
  afterAll(() => {
    rmSync(webDir, { recursive: true, force: true });
  });

  const postJson = (url: string, payload: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } });

  it('wraps answers in {data}', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/theme' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json()).toEqual({
      data: { Accent: 'grape', HighAccessibility: false, LogoURL: '', LightModeLogoURL: '' },
    });
  });

  it.each([
    ['malformed JSON', '{"UserName": "a",', 'Malformed JSON body'],
    ['an empty JSON body', '', 'Empty JSON body'],
    ['a poisoned prototype', '{"__proto__": {"admin": true}, "UserName": "a", "Password": "b"}', 'Malformed JSON body'],
  ])('answers %s with 400 err.badRequest, never 500', async (_name, payload, extra) => {
    const response = await postJson('/api/login', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ Err: ErrorCodes.badRequest, Extra: extra });
  });

  it('names the failing field in Extra when validation fails', async () => {
    const response = await postJson('/api/login', JSON.stringify({ UserName: 'someone' }));
    expect(response.statusCode).toBe(400);
    const body = response.json<{ Err: string; Extra: string }>();
    expect(body.Err).toBe(ErrorCodes.badRequest);
    expect(body.Extra).toMatch(/^Password: /);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: 'UserName=a&Password=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual({ Err: ErrorCodes.unsupportedMediaType });
  });

  it('refuses an oversized body with 413', async () => {
    const response = await postJson('/api/login', JSON.stringify({ UserName: 'a', Password: 'x'.repeat(300_000) }));
    expect(response.statusCode).toBe(413);
    expect(response.json()).toEqual({ Err: ErrorCodes.payloadTooLarge });
  });

  it.each([
    ['GET', '/api/no-such-thing'],
    ['POST', '/api/no-such-thing'],
    ['DELETE', '/api/nothing/here'],
    ['GET', '/api'],
  ])('answers an unknown API route %s %s with a JSON 404', async (method, url) => {
    const response = await t.app.inject({ method: method as 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ Err: ErrorCodes.notFound });
  });

  it('answers unknown admin routes with 401 to strangers and a JSON 404 to admins', async () => {
    expect((await t.app.inject({ method: 'DELETE', url: '/api/admin/nothing/here' })).statusCode).toBe(401);
    const admin = adminClient(t.app, await givenAdminSession(t));
    const { status, body } = await admin.delete('/api/admin/nothing/here');
    expect(status).toBe(404);
    expect(body).toEqual({ Err: ErrorCodes.notFound });
  });

  it.each(['/', '/home', '/admin/knocs/123/update', '/no/such/page?x=1'])(
    'serves the app for the client route %s',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('<title>Postern</title>');
    },
  );

  it('serves built files, hashed assets as immutable, and a missing asset as 404', async () => {
    const asset = await t.app.inject({ method: 'GET', url: '/assets/app-1.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await t.app.inject({ method: 'GET', url: '/favicon.svg' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/assets/missing.js' })).statusCode).toBe(404);
  });

  it.each(['/../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2f..%2fetc%2fpasswd'])(
    'never serves a file outside the build for %s',
    async (url) => {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.body).not.toContain('root:');
    },
  );

  it('picks up a rebuild of the web app without a restart', async () => {
    const before = (await t.app.inject({ method: 'GET', url: '/api/system_status' })).json<{
      data: { JsBundleHash: string };
    }>();
    writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Postern v2</title>');
    utimesSync(path.join(webDir, 'index.html'), new Date(), new Date(Date.now() + 5_000));
    writeFileSync(path.join(webDir, 'assets', 'app-2.js'), 'console.log(2)');

    const after = (await t.app.inject({ method: 'GET', url: '/api/system_status' })).json<{
      data: { JsBundleHash: string };
    }>();
    expect(after.data.JsBundleHash).not.toBe(before.data.JsBundleHash);
    expect((await t.app.inject({ method: 'GET', url: '/home' })).body).toContain('Postern v2');
    expect((await t.app.inject({ method: 'GET', url: '/assets/app-2.js' })).statusCode).toBe(200);
  });

  it('sends security headers and forbids caching API answers', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/' });
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const api = await t.app.inject({ method: 'GET', url: '/api/theme' });
    expect(api.headers['cache-control']).toBe('no-store');
  });

  // A sign-in let through verifies a password hash (for a name nobody has, too).
  describe('cross-site request guard', { timeout: PASSWORD_TEST_TIMEOUT_MS }, () => {
    /** An app behind a proxy, whose browsers come to its public URL (the origin check reads it at build). */
    const behindProxy = useTestApp('sqlite', { config: { publicUrl: 'https://access.example.com' } });
    const login = (headers: Record<string, string>) =>
      postJson('/api/login', JSON.stringify({ UserName: 'x', Password: 'y' }), { host: 'portal.example', ...headers });

    it.each([
      ['another origin', { origin: 'https://evil.example' }],
      ['an opaque origin', { origin: 'null' }],
      ['a cross-site fetch without Origin', { 'sec-fetch-site': 'cross-site' }],
      ['a same-site (sibling subdomain) fetch without Origin', { 'sec-fetch-site': 'same-site' }],
    ])('refuses a state change from %s with 403 err.forbiddenOrigin', async (_name, headers) => {
      const response = await login(headers);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toEqual({ Err: ErrorCodes.forbiddenOrigin });
    });

    it.each([
      ['its own origin', { origin: 'http://portal.example' }],
      ['a same-origin fetch', { 'sec-fetch-site': 'same-origin' }],
      ['a non-browser client', {}],
    ])('lets a request from %s through', async (_name, headers) => {
      const response = await login(headers);
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ Err: ErrorCodes.invalidCredentials });
    });

    it('accepts the configured public URL as an origin', async () => {
      const response = await behindProxy.app.inject({
        method: 'POST',
        url: '/api/logout',
        headers: { origin: 'https://access.example.com', host: '10.0.0.5:8080' },
      });
      expect(response.statusCode).toBe(200);
    });
  });
});
