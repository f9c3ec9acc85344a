import { X509Certificate } from 'node:crypto';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** What we take from an IdP's SAML metadata. */
export interface IdpMetadata {
  entityId: string;
  /** The SingleSignOnService location for the HTTP-Redirect binding. */
  ssoUrl: string;
  /** Every certificate the IdP may sign with, as PEM (several during a key rollover). */
  certificates: string[];
}

/** Metadata that cannot be used; the message is safe to log and to show an administrator. */
export class IdpMetadataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdpMetadataError';
  }
}

const HTTP_REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const SAML2_PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  // Namespace prefixes differ between IdPs (md:, saml2md:, none); the local names are what count.
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) =>
    ['EntityDescriptor', 'EntitiesDescriptor', 'IDPSSODescriptor', 'KeyDescriptor', 'SingleSignOnService'].includes(
      name,
    ) || name === 'X509Certificate',
});

type Node = Record<string, unknown>;

/**
 * Reads an IdP's metadata: its entity ID, its HTTP-Redirect SingleSignOnService and its signing
 * certificates (KeyDescriptors with use="signing" or no use). A federation file (EntitiesDescriptor)
 * is accepted when exactly one entity in it is an IdP. Documents with a DOCTYPE are refused outright,
 * so no entity declarations are ever expanded.
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new IdpMetadataError('metadata with a DOCTYPE is not accepted');
  if (XMLValidator.validate(xml) !== true) throw new IdpMetadataError('the metadata is not well-formed XML');
  const document = parser.parse(xml) as Node;
  const idps = entityDescriptors(document).filter((entity) => idpDescriptors(entity).length > 0);
  if (idps.length !== 1) {
    throw new IdpMetadataError(
      idps.length === 0 ? 'no IdP (IDPSSODescriptor) in the metadata' : 'more than one IdP in the metadata',
    );
  }
  const entity = idps[0] as Node;
  const entityId = stringAttribute(entity, 'entityID');
  if (entityId === undefined || entityId.trim() === '') throw new IdpMetadataError('the IdP has no entityID');
  const descriptors = idpDescriptors(entity).filter((descriptor) =>
    (stringAttribute(descriptor, 'protocolSupportEnumeration') ?? '').split(/\s+/).includes(SAML2_PROTOCOL),
  );
  if (descriptors.length === 0) throw new IdpMetadataError('the IdP does not support SAML 2.0');

  const ssoUrls = descriptors
    .flatMap((descriptor) => nodes(descriptor.SingleSignOnService))
    .filter((service) => stringAttribute(service, 'Binding') === HTTP_REDIRECT)
    .map((service) => stringAttribute(service, 'Location') ?? '');
  const ssoUrl = ssoUrls.find((url) => isHttpUrl(url));
  if (ssoUrl === undefined) {
    throw new IdpMetadataError('the IdP has no http(s) SingleSignOnService with the HTTP-Redirect binding');
  }

  const certificates = new Set<string>();
  for (const descriptor of descriptors) {
    for (const key of nodes(descriptor.KeyDescriptor)) {
      const use = stringAttribute(key, 'use');
      if (use !== undefined && use !== 'signing') continue;
      const keyInfo = nodes(key.KeyInfo)[0];
      for (const data of nodes(keyInfo?.X509Data)) {
        for (const value of [data.X509Certificate].flat()) {
          if (typeof value === 'string' && value.trim() !== '') certificates.add(toPem(value));
        }
      }
    }
  }
  if (certificates.size === 0) throw new IdpMetadataError('the IdP publishes no signing certificate');
  return { entityId: entityId.trim(), ssoUrl, certificates: [...certificates] };
}

function entityDescriptors(node: Node): Node[] {
  const direct = nodes(node.EntityDescriptor);
  const nested = nodes(node.EntitiesDescriptor).flatMap((group) => entityDescriptors(group));
  return [...direct, ...nested];
}

function idpDescriptors(entity: Node): Node[] {
  return nodes(entity.IDPSSODescriptor);
}

function nodes(value: unknown): Node[] {
  const list = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
  return list.filter((item): item is Node => typeof item === 'object' && item !== null);
}

function stringAttribute(node: Node, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === 'string' ? value : undefined;
}

function isHttpUrl(value: string): boolean {
  try {
    const protocol = new URL(value).protocol;
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** Base64 DER (whitespace allowed) to PEM, refusing anything that is not a certificate. */
function toPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  try {
    new X509Certificate(Buffer.from(body, 'base64'));
  } catch {
    throw new IdpMetadataError('a signing certificate in the metadata cannot be read');
  }
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
