import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkLicence,
  generateLicenceKeyPair,
  issueLicence,
  LICENCE_CLOCK_SKEW_MS,
  LICENCE_PREFIX,
  publicKeyBase64,
  publicKeyFromBase64,
  publicKeyFromRaw,
  type LicencePayload,
} from './licence-format.js';
import { parseTrustedKeys } from './licence-keys.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const signer = generateLicenceKeyPair();
const stranger = generateLicenceKeyPair();

const PAYLOAD: LicencePayload = {
  ID: 'lic-0001',
  Licensee: 'Example Pty Ltd',
  UserLimit: 10,
  UserLimitOveragePercentage: 30,
  SessionLimit: 3,
  MaxMachines: 0,
  IssuedAt: '2026-11-01T00:00:00.000Z',
  Expires: '2027-11-01T00:00:00.000Z',
};

const GOOD = issueLicence(PAYLOAD, signer.privateKey);
const [, GOOD_PAYLOAD = '', GOOD_SIGNATURE = ''] = GOOD.split('.');
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Flips one bit of the decoded part and re-encodes it, so the encoding stays valid. */
function flipBit(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[5] = (bytes[5] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}

/**
 * A correctly signed licence over any payload part: issueLicence refuses invalid payloads, so this
 * signs by hand to show the payload checks hold even for a trusted signer's mistakes.
 */
function signedOver(payloadPart: string): string {
  const head = `${LICENCE_PREFIX}.${payloadPart}`;
  return `${head}.${sign(null, Buffer.from(head, 'ascii'), signer.privateKey).toString('base64url')}`;
}

describe('licence format', () => {
  it('has the documented shape: prefix, base64url JSON payload, 64-byte signature', () => {
    expect(GOOD.startsWith(`${LICENCE_PREFIX}.`)).toBe(true);
    expect(JSON.parse(Buffer.from(GOOD_PAYLOAD, 'base64url').toString('utf8'))).toEqual(PAYLOAD);
    expect(Buffer.from(GOOD_SIGNATURE, 'base64url')).toHaveLength(64);
  });

  it.each<[string, string, number, ReturnType<typeof checkLicence>['kind'], string?]>([
    ['a good licence', GOOD, NOW, 'valid'],
    ['a good licence with surrounding whitespace', `\n  ${GOOD}  \n`, NOW, 'valid'],
    ['a tampered payload', `${LICENCE_PREFIX}.${flipBit(GOOD_PAYLOAD)}.${GOOD_SIGNATURE}`, NOW, 'malformed'],
    [
      'a payload edited to raise the limit',
      `${LICENCE_PREFIX}.${b64({ ...PAYLOAD, UserLimit: 1000 })}.${GOOD_SIGNATURE}`,
      NOW,
      'untrusted',
    ],
    ['a tampered signature', `${LICENCE_PREFIX}.${GOOD_PAYLOAD}.${flipBit(GOOD_SIGNATURE)}`, NOW, 'untrusted'],
    ['a licence signed by another key', issueLicence(PAYLOAD, stranger.privateKey), NOW, 'untrusted'],
    ['another version prefix', GOOD.replace(LICENCE_PREFIX, 'postern-licence-v2'), NOW, 'malformed'],
    ['an empty text', '', NOW, 'malformed'],
    ['two parts', `${LICENCE_PREFIX}.${GOOD_PAYLOAD}`, NOW, 'malformed'],
    ['four parts', `${GOOD}.extra`, NOW, 'malformed'],
    ['two licences in one text', `${GOOD} ${GOOD}`, NOW, 'malformed'],
    ['a payload that is not base64url', `${LICENCE_PREFIX}.${GOOD_PAYLOAD}+/.${GOOD_SIGNATURE}`, NOW, 'malformed'],
    ['a short signature', `${LICENCE_PREFIX}.${GOOD_PAYLOAD}.${GOOD_SIGNATURE.slice(0, 40)}`, NOW, 'malformed'],
    ['a payload that is not JSON', signedOver(Buffer.from('not json').toString('base64url')), NOW, 'malformed'],
    ['a payload without a UserLimit', signedOver(b64({ ...PAYLOAD, UserLimit: undefined })), NOW, 'malformed'],
    [
      'an overage above 50 %',
      signedOver(b64({ ...PAYLOAD, UserLimitOveragePercentage: 51 })),
      NOW,
      'malformed',
      'UserLimitOveragePercentage',
    ],
    ['a zero user limit', signedOver(b64({ ...PAYLOAD, UserLimit: 0 })), NOW, 'malformed', 'UserLimit'],
    ['a negative MaxMachines', signedOver(b64({ ...PAYLOAD, MaxMachines: -1 })), NOW, 'malformed', 'MaxMachines'],
    ['an expiry that is not ISO', signedOver(b64({ ...PAYLOAD, Expires: 'next year' })), NOW, 'malformed', 'Expires'],
    [
      'an expiry before the issue date',
      signedOver(b64({ ...PAYLOAD, Expires: '2026-10-01T00:00:00.000Z' })),
      NOW,
      'malformed',
      'Expires',
    ],
    ['a licence at its expiry instant', GOOD, Date.parse(PAYLOAD.Expires), 'expired'],
    ['a licence after its expiry', GOOD, Date.parse(PAYLOAD.Expires) + 1, 'expired'],
    ['a licence a millisecond before expiry', GOOD, Date.parse(PAYLOAD.Expires) - 1, 'valid'],
    ['a licence at its issue instant', GOOD, Date.parse(PAYLOAD.IssuedAt), 'valid'],
    [
      'a licence issued as far ahead as the clock skew allows',
      GOOD,
      Date.parse(PAYLOAD.IssuedAt) - LICENCE_CLOCK_SKEW_MS,
      'valid',
    ],
    [
      'a licence issued a millisecond beyond the clock skew',
      GOOD,
      Date.parse(PAYLOAD.IssuedAt) - LICENCE_CLOCK_SKEW_MS - 1,
      'notYetValid',
    ],
    ['a licence issued a month from now', GOOD, Date.parse(PAYLOAD.IssuedAt) - 30 * 86_400_000, 'notYetValid'],
  ])('reads %s as %s', (_name, text, now, kind, reasonMentions) => {
    const check = checkLicence(text, [signer.publicKey], now);
    expect(check.kind).toBe(kind);
    if (reasonMentions !== undefined && check.kind === 'malformed') expect(check.reason).toContain(reasonMentions);
  });

  it('allows five minutes of clock skew for a licence issued ahead of this server', () => {
    expect(LICENCE_CLOCK_SKEW_MS).toBe(5 * 60_000);
    const check = checkLicence(GOOD, [signer.publicKey], Date.parse(PAYLOAD.IssuedAt) - 6 * 60_000);
    expect(check).toEqual({ kind: 'notYetValid', licence: PAYLOAD });
  });

  it('returns the payload of an expired licence so its status can be shown', () => {
    const check = checkLicence(GOOD, [signer.publicKey], Date.parse(PAYLOAD.Expires) + 1);
    expect(check).toEqual({ kind: 'expired', licence: PAYLOAD });
  });

  it('accepts a licence when any one of several trusted keys signed it', () => {
    expect(checkLicence(GOOD, [stranger.publicKey, signer.publicKey], NOW).kind).toBe('valid');
    expect(checkLicence(GOOD, [], NOW).kind).toBe('untrusted');
  });

  it('ignores a trusted key of another type instead of failing', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    expect(checkLicence(GOOD, [rsa], NOW).kind).toBe('untrusted');
    expect(checkLicence(GOOD, [rsa, signer.publicKey], NOW).kind).toBe('valid');
  });

  it('refuses to sign with anything but an Ed25519 private key, or an invalid payload', () => {
    expect(() => issueLicence(PAYLOAD, signer.publicKey)).toThrow(/Ed25519 private key/);
    expect(() => issueLicence({ ...PAYLOAD, UserLimit: 0 }, signer.privateKey)).toThrow();
  });

  it('round-trips a public key through its base64 form (raw 32 bytes)', () => {
    const text = publicKeyBase64(signer.publicKey);
    expect(Buffer.from(text, 'base64')).toHaveLength(32);
    const again = publicKeyFromBase64(text);
    expect(again?.equals(signer.publicKey)).toBe(true);
    expect(publicKeyFromRaw(Buffer.from(text, 'base64')).equals(signer.publicKey)).toBe(true);
    expect(publicKeyFromBase64(Buffer.from(text, 'base64').toString('base64url'))?.equals(signer.publicKey)).toBe(true);
  });

  it.each(['', 'not base64!', Buffer.alloc(31).toString('base64'), Buffer.alloc(33).toString('base64')])(
    'refuses %j as a public key',
    (text) => {
      expect(publicKeyFromBase64(text)).toBeNull();
    },
  );

  it('reads a trusted-keys file: one key a line, comments and blank lines ignored, bad lines reported', () => {
    const text = [
      '# licence signing keys',
      publicKeyBase64(signer.publicKey),
      '',
      `  ${publicKeyBase64(stranger.publicKey)}  # the other one`,
      'garbage',
    ].join('\n');
    const { keys, badLines } = parseTrustedKeys(text);
    expect(keys.map((key) => publicKeyBase64(key))).toEqual([
      publicKeyBase64(signer.publicKey),
      publicKeyBase64(stranger.publicKey),
    ]);
    expect(badLines).toEqual([5]);
  });
});
