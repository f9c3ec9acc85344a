import type { Profile } from '@node-saml/node-saml';
import { SamlMessageError } from './saml-envelope.js';

const BEARER = 'urn:oasis:names:tc:SAML:2.0:cm:bearer';
const TRANSIENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient';
/** The spec's user name limit (RequiredName). */
const MAX_NAME_LENGTH = 200;
/** A signed assertion id this long is not from any IdP we know; it would only bloat the replay table. */
const MAX_ASSERTION_ID_LENGTH = 256;

/** What a verified assertion says, after the checks node-saml leaves to us. */
export interface VerifiedAssertion {
  assertionId: string;
  /** The request this answers (the Response's InResponseTo, confirmed inside the signed assertion). */
  requestId: string;
  /** The NameID: the account's user name. */
  nameId: string;
  /** The last instant at which this assertion could still be accepted (for the replay table). */
  acceptableUntil: number;
  attributes: Record<string, unknown>;
}

interface Expected {
  idpEntityId: string;
  acsUrl: string;
  now: number;
  clockSkewMs: number;
}

type XmlJs = Record<string, unknown>;

/**
 * Checks a node-saml profile against what node-saml does not check, reading only the signed assertion
 * node-saml verified (profile.getAssertion is parsed from the signature's referenced bytes):
 * - the Issuer is the IdP of the metadata;
 * - a bearer SubjectConfirmation has Recipient = our ACS, InResponseTo = the Response's, and a
 *   NotOnOrAfter that has not passed (the web browser SSO profile requires all three), which binds the
 *   signed assertion to our request and our endpoint even when only the assertion is signed;
 * - the NameID is usable as a user name (not transient, not empty, not too long).
 */
export function checkVerifiedAssertion(profile: Profile, expected: Expected): VerifiedAssertion {
  const assertion = record(profile.getAssertion?.().Assertion);
  if (assertion === undefined) throw new SamlMessageError('no verified assertion');
  const assertionId = attribute(assertion, 'ID');
  if (assertionId === undefined || assertionId === '' || assertionId.length > MAX_ASSERTION_ID_LENGTH) {
    throw new SamlMessageError('the assertion has no usable ID');
  }
  const issuer = text(first(assertion.Issuer));
  if (issuer !== expected.idpEntityId) {
    throw new SamlMessageError(`assertion issuer ${JSON.stringify(issuer)} is not the configured IdP`);
  }
  const requestId = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : undefined;
  if (requestId === undefined || requestId === '') throw new SamlMessageError('the response answers no request');

  const subject = record(first(assertion.Subject));
  const confirmations = list(subject?.SubjectConfirmation).map(record);
  const confirmation = confirmations
    .filter((candidate) => attribute(candidate, 'Method') === BEARER)
    .map((candidate) => record(first(candidate?.SubjectConfirmationData)))
    .find(
      (data) =>
        attribute(data, 'Recipient') === expected.acsUrl &&
        attribute(data, 'InResponseTo') === requestId &&
        instant(attribute(data, 'NotOnOrAfter')) > expected.now - expected.clockSkewMs,
    );
  if (confirmation === undefined) {
    throw new SamlMessageError(
      'no bearer SubjectConfirmation for our ACS and request (Recipient, InResponseTo or NotOnOrAfter)',
    );
  }

  const nameIdElement = record(first(subject?.NameID));
  const nameId = text(nameIdElement);
  if (attribute(nameIdElement, 'Format') === TRANSIENT) {
    throw new SamlMessageError('a transient NameID cannot name an account; configure a persistent NameID');
  }
  if (nameId === undefined || nameId.trim() === '' || nameId !== nameId.trim() || nameId.length > MAX_NAME_LENGTH) {
    throw new SamlMessageError('the NameID is empty, padded or too long for a user name');
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(nameId)) throw new SamlMessageError('the NameID holds control characters');

  const conditions = record(first(assertion.Conditions));
  const limits = [attribute(confirmation, 'NotOnOrAfter'), attribute(conditions, 'NotOnOrAfter')]
    .map(instant)
    .filter((value) => Number.isFinite(value));
  return {
    assertionId,
    requestId,
    nameId,
    acceptableUntil: Math.max(...limits) + expected.clockSkewMs,
    attributes: record(profile.attributes) ?? {},
  };
}

function record(value: unknown): XmlJs | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as XmlJs) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}

function first(value: unknown): unknown {
  return list(value)[0];
}

/** xml2js keeps attributes under `$` and text under `_` (node-saml parses with explicitCharkey). */
function attribute(node: XmlJs | undefined, name: string): string | undefined {
  const value = record(node?.$)?.[name];
  return typeof value === 'string' ? value : undefined;
}

function text(node: unknown): string | undefined {
  const value = record(node)?._;
  return typeof value === 'string' ? value : undefined;
}

function instant(value: string | undefined): number {
  return value === undefined ? Number.NaN : Date.parse(value);
}
