import { describe, expect, it } from 'vitest';
import { etagMatches } from '../http/etag.js';
import { allowlistEtag, allowlistText, publishedLines } from './allowlist-format.js';

describe('publishedLines', () => {
  it('puts IPv4 before IPv6, each in numeric (not text) order, wider ranges before narrower ones', () => {
    expect(
      publishedLines(['2001:db8::10', '10.0.0.0/8', '9.0.0.1', '2001:db8::9', '10.0.0.0/16', '10.0.0.1', '::1']),
    ).toEqual(['9.0.0.1', '10.0.0.0/8', '10.0.0.0/16', '10.0.0.1', '::1', '2001:db8::9', '2001:db8::10']);
  });

  it('writes single hosts without /32 or /128 and keeps every other CIDR as granted', () => {
    expect(publishedLines(['192.0.2.7/32', '2001:db8::1/128', '192.0.2.0/24', '2001:db8::/64'])).toEqual([
      '192.0.2.0/24',
      '192.0.2.7',
      '2001:db8::/64',
      '2001:db8::1',
    ]);
  });

  it('publishes each address once, whatever its spelling', () => {
    expect(publishedLines(['192.0.2.7', '192.0.2.7/32', '2001:DB8::1', '2001:db8::1', '2001:db8:0::1/128'])).toEqual([
      '192.0.2.7',
      '2001:DB8::1',
    ]);
  });

  it('leaves out anything that is not an address or CIDR, so a firewall never meets a bad line', () => {
    expect(publishedLines(['', 'garbage', '192.0.2.300', '192.0.2.1/33', '# comment', '192.0.2.1\n10.0.0.1'])).toEqual(
      [],
    );
  });
});

describe('allowlistText', () => {
  it('starts with the description and the generation time as comments and ends with a newline', () => {
    expect(allowlistText('Office', Date.UTC(2026, 10, 22, 9), ['192.0.2.1'])).toBe(
      '# Postern allowlist for Office\n# generated 2026-11-22T09:00:00.000Z\n192.0.2.1\n',
    );
  });

  it('keeps a description with line breaks inside its comment: it cannot publish an address', () => {
    const text = allowlistText('Office\n0.0.0.0/0\r\n::/0\u2028x', 0, []);
    expect(text.split('\n').filter((line) => !line.startsWith('#'))).toEqual(['']);
    expect(text).toContain('# Postern allowlist for Office 0.0.0.0/0 ::/0 x\n');
  });
});

describe('allowlistEtag and etagMatches', () => {
  const etag = allowlistEtag('txt', 'acl', 'Office', ['192.0.2.1']);

  it('is a quoted strong tag that depends on format, knoc, description and addresses', () => {
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(allowlistEtag('txt', 'acl', 'Office', ['192.0.2.1'])).toBe(etag);
    for (const other of [
      allowlistEtag('json', 'acl', 'Office', ['192.0.2.1']),
      allowlistEtag('txt', 'acl2', 'Office', ['192.0.2.1']),
      allowlistEtag('txt', 'acl', 'Office 2', ['192.0.2.1']),
      allowlistEtag('txt', 'acl', 'Office', ['192.0.2.1', '192.0.2.2']),
      allowlistEtag('txt', 'acl', 'Office', []),
    ]) {
      expect(other).not.toBe(etag);
    }
  });

  it.each([
    [undefined, false],
    ['', false],
    ['"something else"', false],
    [etag.slice(1, -1), false],
    [etag, true],
    [`W/${etag}`, true],
    [`"a", ${etag} , "b"`, true],
    ['*', true],
  ])('If-None-Match %j matches: %s', (header, expected) => {
    expect(etagMatches(header, etag)).toBe(expected);
  });
});
