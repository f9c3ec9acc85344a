import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSelfSignedCertificate } from '../lib/x509.js';
import { IdpMetadataError, parseIdpMetadata } from './idp-metadata.js';

const newCertificate = (name: string) =>
  createSelfSignedCertificate({
    commonName: name,
    days: 1,
    privateKey: generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey,
  }).certificatePem;
const SIGNING = newCertificate('signing');
const NEXT = newCertificate('next');
const ENCRYPTION = newCertificate('encryption');

const base64 = (pem: string) => pem.replace(/-----[^-]+-----|\s+/g, '');
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

function key(use: string | null, pem: string, prefix = 'md:') {
  return `<${prefix}KeyDescriptor${use === null ? '' : ` use="${use}"`}><ds:KeyInfo><ds:X509Data><ds:X509Certificate>
    ${base64(pem)}
  </ds:X509Certificate></ds:X509Data></ds:KeyInfo></${prefix}KeyDescriptor>`;
}

function idp(options: { keys?: string; sso?: string; entityId?: string; prefix?: string } = {}) {
  const p = options.prefix ?? 'md:';
  const ns = p === '' ? 'xmlns' : `xmlns:${p.slice(0, -1)}`;
  return `<${p}EntityDescriptor ${ns}="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${options.entityId ?? 'https://idp.example/metadata'}">
  <${p}IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    ${options.keys ?? key('signing', SIGNING, p)}
    ${options.sso ?? `<${p}SingleSignOnService Binding="${POST}" Location="https://idp.example/post"/><${p}SingleSignOnService Binding="${REDIRECT}" Location="https://idp.example/sso?x=1&amp;y=2"/>`}
  </${p}IDPSSODescriptor>
</${p}EntityDescriptor>`;
}

function failure(xml: string): string {
  try {
    parseIdpMetadata(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(IdpMetadataError);
    return (error as Error).message;
  }
  throw new Error('expected IdpMetadataError');
}

describe('parseIdpMetadata', () => {
  it('reads the entity ID, the HTTP-Redirect SSO location and the signing certificate', () => {
    const metadata = parseIdpMetadata(idp());
    expect(metadata.entityId).toBe('https://idp.example/metadata');
    expect(metadata.ssoUrl).toBe('https://idp.example/sso?x=1&y=2');
    expect(metadata.certificates).toHaveLength(1);
    expect(new X509Certificate(metadata.certificates[0] ?? '').fingerprint256).toBe(
      new X509Certificate(SIGNING).fingerprint256,
    );
  });

  it('takes every signing certificate (a rollover) and keys without a use, never encryption-only keys', () => {
    const keys = key('signing', SIGNING) + key(null, NEXT) + key('encryption', ENCRYPTION);
    const fingerprints = parseIdpMetadata(idp({ keys })).certificates.map(
      (pem) => new X509Certificate(pem).fingerprint256,
    );
    expect(fingerprints).toEqual([SIGNING, NEXT].map((pem) => new X509Certificate(pem).fingerprint256));
  });

  it('reads metadata without namespace prefixes', () => {
    expect(parseIdpMetadata(idp({ prefix: '' })).entityId).toBe('https://idp.example/metadata');
  });

  it('finds the one IdP in a federation file', () => {
    const sp = `<md:EntityDescriptor entityID="https://sp.example"><md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>`;
    const inner = idp().replace(
      /<md:EntityDescriptor [^>]*>/,
      '<md:EntityDescriptor entityID="https://idp.example/metadata">',
    );
    const federation = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#">${sp}${inner}</md:EntitiesDescriptor>`;
    expect(parseIdpMetadata(federation).entityId).toBe('https://idp.example/metadata');
  });

  it.each([
    ['a DOCTYPE', `<!DOCTYPE x [<!ENTITY a "b">]>${idp()}`, /DOCTYPE/],
    ['broken XML', '<md:EntityDescriptor', /well-formed/],
    ['no IdP', '<EntityDescriptor entityID="x"/>', /no IdP/],
    [
      'no HTTP-Redirect binding',
      idp({ sso: `<md:SingleSignOnService Binding="${POST}" Location="https://idp/x"/>` }),
      /HTTP-Redirect/,
    ],
    [
      'a non-http SSO location',
      idp({ sso: `<md:SingleSignOnService Binding="${REDIRECT}" Location="javascript:alert(1)"/>` }),
      /HTTP-Redirect/,
    ],
    ['no signing certificate', idp({ keys: key('encryption', ENCRYPTION) }), /no signing certificate/],
    [
      'a certificate that is not one',
      idp({
        keys: '<md:KeyDescriptor><ds:KeyInfo><ds:X509Data><ds:X509Certificate>AAAA</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>',
      }),
      /cannot be read/,
    ],
    ['no entity ID', idp({ entityId: '' }), /no entityID/],
  ])('refuses metadata with %s', (_what, xml, message) => {
    expect(failure(xml)).toMatch(message);
  });
});
