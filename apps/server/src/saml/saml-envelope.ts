import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * A first look at a posted SAMLResponse, before node-saml validates it: refuse what no IdP sends
 * (DTDs, which are forbidden in SAML messages and the root of entity-expansion attacks, and anything
 * that is not a single Response), and read the envelope fields node-saml does not check for us.
 *
 * Nothing here is trusted for identity: the envelope is outside the assertion's signature (unless the
 * Response is signed too). It decides two things only, both in the direction of refusing more:
 * whether the Response carries its own signature (which must then verify), and its Destination.
 */
export interface ResponseEnvelope {
  xml: string;
  destination: string | undefined;
  /** The Response has a ds:Signature child of its own. */
  signed: boolean;
}

/** A malformed or unacceptable message; the text is for the log, never for the browser. */
export class SamlMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SamlMessageError';
  }
}

const BASE64 = /^[A-Za-z0-9+/\s]+={0,2}\s*$/;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

export function readResponseEnvelope(samlResponse: string): ResponseEnvelope {
  if (samlResponse === '' || !BASE64.test(samlResponse)) throw new SamlMessageError('SAMLResponse is not base64');
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SamlMessageError('the response contains a DOCTYPE');
  if (XMLValidator.validate(xml) !== true) throw new SamlMessageError('the response is not well-formed XML');
  const document = parser.parse(xml) as Record<string, unknown>;
  const roots = Object.keys(document).filter((key) => key !== '?xml');
  const response = document.Response;
  if (roots.length !== 1 || typeof response !== 'object' || response === null || Array.isArray(response)) {
    throw new SamlMessageError('the message is not a single SAML Response');
  }
  const fields = response as Record<string, unknown>;
  const destination = fields['@_Destination'];
  return {
    xml,
    destination: typeof destination === 'string' ? destination : undefined,
    signed: fields.Signature !== undefined,
  };
}
