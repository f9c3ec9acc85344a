import { deflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { ErrorCodes, LOGO_MAX_PIXELS } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import { givenAdmin } from '../test-support/factories.js';
import { givenAdminSession } from '../test-support/sessions.js';
import { adminClient, type AdminClient, type AdminMethod } from '../test-support/admin-client.js';
import { waitFor } from '@postern/test-support';
import { readSettings } from './settings.js';
import {
  dataUrl,
  decodedSize,
  greyscalePng,
  gradient,
  jpegBytes,
  jpegClaiming,
  pngBytes,
} from '../test-support/images.js';
import { LogoCodec } from './logo-codec.js';
import type { LogoJob } from './logo-reencode.js';

const PNG = dataUrl('image/png', pngBytes(24, 12));
const JPEG = dataUrl('image/jpeg', jpegBytes(20, 10));
const CUSTOM = { Accent: 'grape', HighAccessibility: false, NewUserDashboard: true };
/** The app's logo worker, which the tests watch; `timeLimitMs` shortens the time limit of the images sent to it. */
class HeldLogoCodec extends LogoCodec {
  timeLimitMs: number | undefined;
  override reencode(job: LogoJob, options: { timeLimitMs?: number } = {}) {
    return super.reencode(job, { timeLimitMs: this.timeLimitMs, ...options });
  }
}

describe('settings API: logos (sqlite)', () => {
  const codec = new HeldLogoCodec();
  const t = useTestApp('sqlite', { logoCodec: codec });
  let admin: AdminClient;
  beforeEach(async () => {
    const settingsAdmin = await givenAdmin(t.ctx, { userName: 'settings-admin' });
    admin = adminClient(t.app, await givenAdminSession(t, settingsAdmin));
  });

  /** The signed-in admin's call, answering the raw response. */
  const call = async (method: AdminMethod, url: string, payload?: object) =>
    (await admin.request(method, url, payload)).response;

  it('stores logos, serves them with a cache tag and announces them in the theme', async () => {
    const saved = await call('PUT', '/api/admin/settings/customize', {
      ...CUSTOM,
      Accent: 'teal',
      Logo: PNG,
      LightModeLogo: JPEG,
    });
    const stored = saved.json<{ data: { Accent: string; Logo: string; LightModeLogo: string } }>().data;
    expect(stored.Accent).toBe('teal');
    expect(stored.Logo).toMatch(/^data:image\/png;base64,/);
    expect(stored.LightModeLogo).toMatch(/^data:image\/jpeg;base64,/);
    const theme = (await t.app.inject({ method: 'GET', url: '/api/theme' })).json<{
      data: { LogoURL: string; LightModeLogoURL: string };
    }>().data;
    expect(theme.LogoURL).toMatch(/^\/api\/branding\/logo\/dark\?v=[0-9a-f]{16}$/);
    const logo = await t.app.inject({ method: 'GET', url: theme.LogoURL });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers['content-type']).toBe('image/png');
    expect(logo.rawPayload.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    const again = await t.app.inject({
      method: 'GET',
      url: theme.LogoURL,
      headers: { 'if-none-match': String(logo.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
    expect((await t.app.inject({ method: 'GET', url: theme.LightModeLogoURL })).headers['content-type']).toBe(
      'image/jpeg',
    );

    // Leaving a logo out keeps it; null removes it.
    await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, LightModeLogo: null });
    const after = (await call('GET', '/api/admin/settings')).json<{ data: { Logo: string; LightModeLogo: string } }>()
      .data;
    expect(after).toMatchObject({ Logo: stored.Logo, LightModeLogo: '' });
    expect((await t.app.inject({ method: 'GET', url: '/api/branding/logo/light' })).statusCode).toBe(404);
  });

  it.each([
    ['a GIF', 'data:image/gif;base64,R0lGODlhAQABAAAAACw=', ErrorCodes.logoFormat],
    [
      'a script calling itself a PNG',
      `data:image/png;base64,${Buffer.from('<script>alert(1)</script>').toString('base64')}`,
      ErrorCodes.logoFormat,
    ],
    ['a JPEG calling itself a PNG', JPEG.replace('image/jpeg', 'image/png'), ErrorCodes.logoFormat],
    [
      'an oversized image',
      `data:image/png;base64,${Buffer.alloc(600 * 1024, 1).toString('base64')}`,
      ErrorCodes.logoTooLarge,
    ],
  ])('refuses %s as a logo', async (_name, logo, code) => {
    const response = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ Err: code });
  });

  describe('logos are decoded, bounded and re-encoded', () => {
    const TRAILING_HTML = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>');
    const ZIP = Buffer.concat([Buffer.from('504b0304', 'hex'), Buffer.from('polyglot.html<script>alert(1)</script>')]);
    // The decoding happens in the logo worker: what is refused from its header never reaches it.
    let decoder: MockInstance<LogoCodec['reencode']>;
    beforeEach(() => {
      decoder = vi.spyOn(LogoCodec.prototype, 'reencode');
    });
    afterEach(() => {
      decoder.mockRestore();
    });

    /** Uploads `logo` as the dark logo and answers the served bytes and their type. */
    const roundTrip = async (logo: string) => {
      const saved = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo });
      expect(saved.statusCode, saved.body).toBe(200);
      const served = await t.app.inject({ method: 'GET', url: '/api/branding/logo/dark' });
      expect(served.statusCode).toBe(200);
      return { type: String(served.headers['content-type']), bytes: served.rawPayload };
    };

    it.each([
      ['a PNG', 'image/png', pngBytes(37, 19), 37, 19],
      ['a PNG with transparency', 'image/png', pngBytes(8, 30, 100), 8, 30],
      ['a greyscale PNG', 'image/png', greyscalePng(16, 4), 16, 4],
      ['a JPEG', 'image/jpeg', jpegBytes(41, 23), 41, 23],
    ])('stores %s re-encoded: the served logo decodes to the same size', async (_name, type, bytes, width, height) => {
      const served = await roundTrip(dataUrl(type, bytes));
      expect(served.type).toBe(type);
      expect(decodedSize(type, served.bytes)).toMatchObject({ width, height });
    });

    it('keeps the pixels of a PNG exactly', async () => {
      const served = await roundTrip(dataUrl('image/png', pngBytes(12, 5, 200)));
      expect(Buffer.from(decodedSize('image/png', served.bytes).data)).toEqual(gradient(12, 5, 200));
    });

    it('stores a PNG with HTML after its end without the trailing bytes', async () => {
      const png = pngBytes(10, 10);
      const served = await roundTrip(dataUrl('image/png', Buffer.concat([png, TRAILING_HTML])));
      expect(served.bytes.includes('<script')).toBe(false);
      expect(served.bytes.subarray(-12).toString('hex')).toBe('0000000049454e44ae426082');
      expect(decodedSize('image/png', served.bytes)).toMatchObject({ width: 10, height: 10 });
    });

    it('stores a JPEG/ZIP polyglot as the JPEG alone', async () => {
      const served = await roundTrip(dataUrl('image/jpeg', Buffer.concat([jpegBytes(16, 16), ZIP])));
      expect(served.bytes.includes(Buffer.from('504b0304', 'hex'))).toBe(false);
      expect(served.bytes.includes('<script')).toBe(false);
      expect(served.bytes.subarray(-2).toString('hex')).toBe('ffd9');
    });

    it.each([
      ['a 5000 × 10 PNG', () => dataUrl('image/png', greyscalePng(5000, 10))],
      ['a 10 × 5000 PNG', () => dataUrl('image/png', greyscalePng(10, 5000))],
      ['a 5000 × 8 JPEG', () => dataUrl('image/jpeg', jpegBytes(5000, 8))],
      [
        'a small PNG claiming 100000 × 100000 (a decompression bomb)',
        () => dataUrl('image/png', greyscalePng(100_000, 100_000, deflateSync(Buffer.alloc(1024 * 1024)))),
      ],
      ['a real compressed 4096 × 4097 PNG', () => dataUrl('image/png', greyscalePng(4096, 4097))],
      ['a 4096 × 1025 PNG (over the pixel budget)', () => dataUrl('image/png', greyscalePng(4096, 1025))],
      ['a 2049 × 2048 JPEG (over the pixel budget)', () => dataUrl('image/jpeg', jpegClaiming(2049, 2048))],
      [
        'a 4096 × 4096 PNG of a few KB (the outside probe’s upload)',
        () => dataUrl('image/png', greyscalePng(4096, 4096)),
      ],
    ])('refuses %s from its header, without decoding it', async (_name, logo) => {
      const response = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo() });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ Err: ErrorCodes.logoDimensionsTooLarge, Extra: 'Logo' });
      expect(decoder).not.toHaveBeenCalled();
      expect((await readSettings(t.ctx.db)).Logo).toBe('');
    });

    it('refuses an interlaced PNG whose data inflates far beyond its size', async () => {
      // 64 × 64 grey pixels need about 8 KiB; this stream inflates to 64 MiB. Its header is fine, so
      // it goes to the worker, whose inflate is bounded by the size before pngjs sees the stream
      // (logo-reencode.test.ts shows the bound).
      const bomb = greyscalePng(64, 64, deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 }), true);
      const response = await call('PUT', '/api/admin/settings/customize', {
        ...CUSTOM,
        Logo: dataUrl('image/png', bomb),
      });
      expect(response.json()).toEqual({ Err: ErrorCodes.logoFormat, Extra: 'Logo' });
    });

    it('accepts a logo of exactly 4096 pixels a side', async () => {
      const served = await roundTrip(dataUrl('image/png', greyscalePng(4096, 1)));
      expect(decodedSize('image/png', served.bytes)).toMatchObject({ width: 4096, height: 1 });
    });

    it('accepts a logo of exactly the pixel budget (4096 × 1024)', { timeout: 60_000 }, async () => {
      expect(4096 * 1024).toBe(LOGO_MAX_PIXELS);
      const served = await roundTrip(dataUrl('image/png', greyscalePng(4096, 1024)));
      expect(decodedSize('image/png', served.bytes)).toMatchObject({ width: 4096, height: 1024 });
    });

    describe('off the event loop', () => {
      // Making, decoding and re-encoding the largest logo takes a second or more on a busy machine.
      const SLOW = { timeout: 60_000 };
      /**
       * A real PNG of the largest square the pixel budget accepts: hundreds of milliseconds to decode
       * (and to make, so it is made once for both tests).
       */
      let largest: string | undefined;
      const largestPng = () => (largest ??= dataUrl('image/png', pngBytes(2048, 2048)));
      const upload = (logo: string) => call('PUT', '/api/admin/settings/customize', { ...CUSTOM, Logo: logo });
      afterEach(() => {
        codec.timeLimitMs = undefined;
      });

      it('answers other requests while a large logo is being decoded', SLOW, async () => {
        let uploaded = false;
        const uploading = upload(largestPng()).then((response) => {
          uploaded = true;
          return response;
        });
        await waitFor(() => codec.pending.running === 1, 'the logo to be handed to the worker');
        const theme = await t.app.inject({ method: 'GET', url: '/api/theme' });
        expect(theme.statusCode).toBe(200);
        // Answered while the worker still decodes: the event loop was free the whole time.
        expect(uploaded).toBe(false);
        expect(codec.pending.running).toBe(1);
        const response = await uploading;
        expect(response.statusCode, response.body).toBe(200);
        const served = await t.app.inject({ method: 'GET', url: '/api/branding/logo/dark' });
        expect(decodedSize('image/png', served.rawPayload)).toMatchObject({ width: 2048, height: 2048 });
      });

      it('refuses a logo whose decode overruns the time limit (err.logoTooLarge), storing nothing', SLOW, async () => {
        codec.timeLimitMs = 1;
        const response = await upload(largestPng());
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ Err: ErrorCodes.logoTooLarge, Extra: 'Logo' });
        expect((await readSettings(t.ctx.db)).Logo).toBe('');
      });
    });

    it.each([
      ['a GIF', 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'],
      [
        'an SVG',
        `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>').toString('base64')}`,
      ],
      ['a GIF calling itself a PNG', 'data:image/png;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'],
      ['an SVG calling itself a JPEG', `data:image/jpeg;base64,${Buffer.from('<svg/>').toString('base64')}`],
      ['a PNG calling itself a JPEG', () => dataUrl('image/jpeg', pngBytes(4, 4))],
      ['a PNG cut short', () => dataUrl('image/png', pngBytes(30, 30).subarray(0, 60))],
      ['a PNG whose data is not deflate', () => dataUrl('image/png', greyscalePng(4, 4, Buffer.from('not zlib')))],
      ['a JPEG cut short', () => dataUrl('image/jpeg', jpegBytes(30, 30).subarray(0, 200))],
      [
        'HTML after a PNG signature',
        () => dataUrl('image/png', Buffer.concat([pngBytes(1, 1).subarray(0, 8), TRAILING_HTML])),
      ],
    ])('refuses %s (err.logoFormat)', async (_name, logo) => {
      const value = typeof logo === 'string' ? logo : logo();
      for (const field of ['Logo', 'LightModeLogo']) {
        const response = await call('PUT', '/api/admin/settings/customize', { ...CUSTOM, [field]: value });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toEqual({ Err: ErrorCodes.logoFormat, Extra: field });
      }
    });
  });
});
