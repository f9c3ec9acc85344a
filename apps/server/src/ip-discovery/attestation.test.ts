import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IP_ATTESTATION_TTL_MS } from '@postern/protocol';
import { SecretBox } from '../secrets/secret-box.js';
import { ATTESTATION_CLOCK_SKEW_MS, IpAttestor } from './attestation.js';

const NOW = Date.UTC(2026, 10, 22, 9, 0, 0);
const KEY = randomBytes(32);
const SUBJECT = { ip: '203.0.113.7', port: 8000 };

/** A character that differs from `char` and keeps the token well-formed. */
function other(char: string): string {
  return char === 'A' ? 'B' : 'A';
}

describe('IP attestations', () => {
  const attestor = new IpAttestor(new SecretBox([KEY]));
  const token = attestor.issue(SUBJECT, NOW);

  it('are short tokens that verify for the address and port they were issued for', () => {
    expect(token).toMatch(/^v1\.\d+\.[A-Za-z0-9_-]{43}$/);
    expect(attestor.verify(token, SUBJECT, NOW)).toBe(true);
  });

  it('verify on another replica that shares the secret key, and not under another key', () => {
    expect(new IpAttestor(new SecretBox([Buffer.from(KEY)])).verify(token, SUBJECT, NOW + 1_000)).toBe(true);
    expect(new IpAttestor(new SecretBox([randomBytes(32)])).verify(token, SUBJECT, NOW)).toBe(false);
  });

  it('name the address in its canonical spelling, so a mapped spelling is the same address', () => {
    const mapped = attestor.issue({ ip: '::ffff:203.0.113.7', port: 8000 }, NOW);
    expect(attestor.verify(mapped, SUBJECT, NOW)).toBe(true);
    const v6 = attestor.issue({ ip: '2001:DB8:0::1', port: 443 }, NOW);
    expect(attestor.verify(v6, { ip: '2001:db8::1', port: 443 }, NOW)).toBe(true);
  });

  it.each([
    ['another address', token, { ...SUBJECT, ip: '203.0.113.8' }, NOW],
    ['another port', token, { ...SUBJECT, port: 443 }, NOW],
    ['expired', token, SUBJECT, NOW + IP_ATTESTATION_TTL_MS + 1],
    ['issued in the future', attestor.issue(SUBJECT, NOW + ATTESTATION_CLOCK_SKEW_MS + 1), SUBJECT, NOW],
    ['a changed MAC', `${token.slice(0, -1)}${other(token.slice(-1))}`, SUBJECT, NOW],
    ['a changed time', token.replace(/^v1\.(\d+)\./, (_all, at: string) => `v1.${Number(at) + 1}.`), SUBJECT, NOW],
    ['another version', token.replace(/^v1\./, 'v2.'), SUBJECT, NOW],
    ['a truncated token', token.slice(0, -2), SUBJECT, NOW],
    ['nothing', '', SUBJECT, NOW],
    ['garbage', 'not.a.token', SUBJECT, NOW],
  ])('refuse %s', (_name, candidate, subject, now) => {
    expect(attestor.verify(candidate, subject, now)).toBe(false);
  });

  it('still hold at the end of their lifetime and within the clock skew', () => {
    expect(attestor.verify(token, SUBJECT, NOW + IP_ATTESTATION_TTL_MS)).toBe(true);
    expect(attestor.verify(token, SUBJECT, NOW - ATTESTATION_CLOCK_SKEW_MS)).toBe(true);
  });
});
