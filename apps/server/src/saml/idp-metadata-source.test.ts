import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../lib/clock.js';
import { createSelfSignedCertificate } from '../lib/x509.js';
import type { Settings } from '../settings/settings.js';
import { IdpMetadataSource, METADATA_CACHE_DEFAULTS } from './idp-metadata-source.js';
import { IdpMetadataError } from './idp-metadata.js';

const MINUTE_MS = 60_000;

const certificate = (name: string) =>
  createSelfSignedCertificate({
    commonName: name,
    days: 1,
    privateKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey,
  }).certificatePem;
const FIRST = certificate('first');
const SECOND = certificate('second');

function metadataWith(pem: string, entityId = 'https://idp.example/metadata'): string {
  const body = pem.replace(/-----[^-]+-----|\s+/g, '');
  return `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${body}</X509Certificate></X509Data></KeyInfo></KeyDescriptor>
    <SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example/sso"/>
  </IDPSSODescriptor>
</EntityDescriptor>`;
}

/** The settings that matter here; everything else at its empty default. */
function settings(change: Partial<Settings>): Settings {
  return {
    SAMLMetadataURL: '',
    SAMLMetadataFile: '',
    AdminSAMLMetadataURL: '',
    AdminSAMLMetadataFile: '',
    ...change,
  } as Settings;
}

describe('IdpMetadataSource', () => {
  let server: Server;
  let url: string;
  let served: { status: number; body: string };
  let fetches: number;
  let clock: ManualClock;
  let source: IdpMetadataSource;

  beforeEach(async () => {
    served = { status: 200, body: metadataWith(FIRST) };
    fetches = 0;
    server = createServer((_request, response) => {
      fetches += 1;
      response.writeHead(served.status).end(served.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metadata`;
    clock = new ManualClock();
    source = new IdpMetadataSource(clock, pino({ level: 'silent' }));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fetches once and serves from the cache until it is no longer fresh', async () => {
    const s = settings({ SAMLMetadataURL: url });
    await source.load(s, 'user');
    clock.advance(METADATA_CACHE_DEFAULTS.freshMs - 1);
    await source.load(s, 'user');
    expect(fetches).toBe(1);
    clock.advance(1);
    await source.load(s, 'user');
    expect(fetches).toBe(2);
  });

  it('keeps each realm apart', async () => {
    await source.load(settings({ SAMLMetadataURL: url, AdminSAMLMetadataURL: url }), 'user');
    await source.load(settings({ SAMLMetadataURL: url, AdminSAMLMetadataURL: url }), 'admin');
    expect(fetches).toBe(2);
  });

  it('fetches again when the URL changes', async () => {
    await source.load(settings({ SAMLMetadataURL: url }), 'user');
    await source.load(settings({ SAMLMetadataURL: `${url}?v=2` }), 'user');
    expect(fetches).toBe(2);
  });

  it('uses a recent copy when the IdP cannot be reached, but not an old one', async () => {
    const s = settings({ SAMLMetadataURL: url });
    await source.load(s, 'user');
    served = { status: 503, body: '' };
    clock.advance(10 * MINUTE_MS);
    expect((await source.load(s, 'user')).entityId).toBe('https://idp.example/metadata');
    clock.advance(METADATA_CACHE_DEFAULTS.staleMs);
    await expect(source.load(s, 'user')).rejects.toThrow(/answered 503/);
  });

  it('prefers the uploaded file to the URL', async () => {
    const loaded = await source.load(
      settings({ SAMLMetadataURL: url, SAMLMetadataFile: metadataWith(SECOND, 'https://file.example') }),
      'user',
    );
    expect(loaded.entityId).toBe('https://file.example');
    expect(fetches).toBe(0);
  });

  it('says so when nothing is configured', async () => {
    await expect(source.load(settings({}), 'admin')).rejects.toBeInstanceOf(IdpMetadataError);
  });

  it('30 concurrent anonymous loads while the IdP fails cause one fetch, and every load fails with its error', async () => {
    served = { status: 500, body: '' };
    const s = settings({ SAMLMetadataURL: url });

    const results = await Promise.allSettled(Array.from({ length: 30 }, () => source.load(s, 'user')));

    expect(fetches).toBe(1);
    expect(results.map((result) => result.status)).toEqual(new Array(30).fill('rejected'));
    for (const result of results) {
      if (result.status === 'rejected') expect(String(result.reason)).toMatch(/answered 500/);
    }
  });

  it('30 concurrent loads share one successful fetch', async () => {
    const s = settings({ SAMLMetadataURL: url });
    const loaded = await Promise.all(Array.from({ length: 30 }, () => source.load(s, 'user')));
    expect(fetches).toBe(1);
    expect(new Set(loaded).size).toBe(1);
  });

  it('does not fetch a failed URL again for failureMemoryMs, but fetches another URL at once', async () => {
    served = { status: 500, body: '' };
    const s = settings({ SAMLMetadataURL: url });
    await expect(source.load(s, 'user')).rejects.toThrow(/answered 500/);

    clock.advance(METADATA_CACHE_DEFAULTS.failureMemoryMs - 1);
    await expect(source.load(s, 'user')).rejects.toThrow(/answered 500/);
    expect(fetches).toBe(1);
    // An administrator who corrects the URL is not kept waiting.
    await expect(source.load(settings({ SAMLMetadataURL: `${url}?fixed` }), 'user')).rejects.toThrow(/answered 500/);
    expect(fetches).toBe(2);

    served = { status: 200, body: metadataWith(FIRST) };
    clock.advance(1);
    expect((await source.load(s, 'user')).entityId).toBe('https://idp.example/metadata');
    expect(fetches).toBe(3);
  });

  it('serves a still usable copy without fetching again for failureMemoryMs after a re-fetch failed', async () => {
    const s = settings({ SAMLMetadataURL: url });
    await source.load(s, 'user');
    served = { status: 503, body: '' };
    clock.advance(METADATA_CACHE_DEFAULTS.freshMs);
    await source.load(s, 'user');
    expect(fetches).toBe(2);

    clock.advance(METADATA_CACHE_DEFAULTS.failureMemoryMs - 1);
    expect((await source.load(s, 'user')).entityId).toBe('https://idp.example/metadata');
    expect(fetches).toBe(2);
    clock.advance(1);
    await source.load(s, 'user');
    expect(fetches).toBe(3);
  });

  it('re-fetches once for a flood of failed signature checks, and not again for failureMemoryMs after a failure', async () => {
    const s = settings({ SAMLMetadataURL: url });
    await source.load(s, 'user');
    served = { status: 500, body: '' };
    clock.advance(METADATA_CACHE_DEFAULTS.minRefetchMs);

    const flood = await Promise.all(Array.from({ length: 30 }, () => source.refetchIfChanged(s, 'user')));
    expect(flood).toEqual(new Array(30).fill(null));
    expect(fetches).toBe(2);
    expect(await source.refetchIfChanged(s, 'user')).toBeNull();
    expect(fetches).toBe(2);
  });

  it('picks up new IdP certificates after a failed signature check, at most once a minute', async () => {
    const s = settings({ SAMLMetadataURL: url });
    await source.load(s, 'user');
    served = { status: 200, body: metadataWith(SECOND) };
    // Moments after the last fetch: no new fetch (a flood of bad responses cannot hammer the IdP).
    expect(await source.refetchIfChanged(s, 'user')).toBeNull();
    expect(fetches).toBe(1);
    clock.advance(METADATA_CACHE_DEFAULTS.minRefetchMs);
    const fresh = await source.refetchIfChanged(s, 'user');
    expect(fresh?.certificates).toHaveLength(1);
    expect(fresh?.certificates[0]?.replace(/\s+/g, '')).toBe(SECOND.replace(/\s+/g, ''));
    // Now cached: the next load uses the new certificates without fetching.
    expect(await source.load(s, 'user')).toEqual(fresh);
    expect(fetches).toBe(2);
    clock.advance(METADATA_CACHE_DEFAULTS.minRefetchMs);
    expect(await source.refetchIfChanged(s, 'user')).toBeNull();
  });
});
