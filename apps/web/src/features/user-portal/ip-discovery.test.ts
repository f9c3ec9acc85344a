import { describe, expect, it, vi } from 'vitest';
import { discoverFamily, discoverIps, discoveryKey, discoveryUrl, otherFamilyAddress } from './ip-discovery';

/** A discovery host answering per port: an address (as JSON or text), a status, or a network failure. */
function host(answers: Record<number, { json?: unknown; text?: string; status?: number } | Error>) {
  return vi.fn((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const answer = answers[port];
    if (answer === undefined || answer instanceof Error) return Promise.reject(answer ?? new TypeError('refused'));
    expect(init).toMatchObject({ credentials: 'omit', mode: 'cors' });
    const body = answer.text ?? JSON.stringify(answer.json);
    return Promise.resolve(new Response(body, { status: answer.status ?? 200 }));
  });
}

describe('IP discovery', () => {
  it('asks the IPApi host on each discovery port and lists what each one saw', async () => {
    const fetch = host({
      443: { json: { IP: '203.0.113.7', Port: 443, Attestation: 'v1.1.token-for-443' } },
      222: { json: { IP: '198.51.100.9' } },
      3389: { text: '2001:db8::5\n' },
      8000: { json: { ip: '203.0.113.7' } },
    });
    const found = await discoverIps('https://ip.example.com', [443, 222, 3389, 8000], fetch);
    expect(found).toEqual([
      // Postern's responder signs what it saw; the token goes to the server as it came.
      { Port: 443, IP: '203.0.113.7', Attestation: 'v1.1.token-for-443' },
      { Port: 222, IP: '198.51.100.9' },
      { Port: 3389, IP: '2001:db8::5' },
      { Port: 8000, IP: '203.0.113.7' },
    ]);
    expect(fetch.mock.calls.map(([url]) => String(url as string))).toEqual([
      'https://ip.example.com/',
      'https://ip.example.com:222/',
      'https://ip.example.com:3389/',
      'https://ip.example.com:8000/',
    ]);
  });

  it('uses the spec ports 443, 222, 3389 and 8000 by default', async () => {
    const fetch = host({});
    await discoverIps('http://portal.example', undefined, fetch);
    expect(fetch.mock.calls.map(([url]) => new URL(url as string).port)).toEqual(['443', '222', '3389', '8000']);
  });

  it('leaves out ports that fail, refuse or answer something that is not an address', async () => {
    const fetch = host({
      443: new TypeError('blocked by CSP'),
      222: { status: 500, json: { IP: '203.0.113.1' } },
      3389: { text: '<html>hello</html>' },
      8000: { json: { IP: '192.0.2.44' } },
    });
    expect(await discoverIps('http://ip.example.com', [443, 222, 3389, 8000], fetch)).toEqual([
      { Port: 8000, IP: '192.0.2.44' },
    ]);
  });

  it.each(['127.0.0.1', '::1', '169.254.169.254', 'fe80::1', '::ffff:127.0.0.1', 'fd00:ec2::254'])(
    'leaves out %s, an address no grant may open, so grants do not fail on it',
    async (address) => {
      const fetch = host({
        443: { json: { IP: address, Port: 443, Attestation: 'v1.1.token' } },
        8000: { json: { IP: '192.0.2.44', Port: 8000, Attestation: 'v1.1.other' } },
      });
      expect(await discoverIps('http://ip.example.com', [443, 8000], fetch)).toEqual([
        { Port: 8000, IP: '192.0.2.44', Attestation: 'v1.1.other' },
      ]);
    },
  );

  it('leaves out answers that name a network or a zone rather than one address', async () => {
    const fetch = host({ 443: { text: '192.0.2.0' }, 222: { text: 'fe80::1%eth0' }, 8000: { text: '10.0.0.0/8' } });
    expect(await discoverIps('http://ip.example.com', [443, 222, 8000], fetch)).toEqual([
      { Port: 443, IP: '192.0.2.0' },
    ]);
  });

  it('asks nothing of a base that is not an http(s) URL', async () => {
    const fetch = host({});
    expect(await discoverIps('ftp://ip.example.com', [443], fetch)).toEqual([]);
    expect(discoveryUrl('not a url', 443)).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('keeps the base path and names each result set the same way whatever its order', () => {
    expect(discoveryUrl('https://ip.example.com/whoami', 8000)).toBe('https://ip.example.com:8000/whoami');
    expect(
      discoveryKey([
        { Port: 8000, IP: '192.0.2.1', Attestation: 'v1.1.a' },
        { Port: 443, IP: '192.0.2.1' },
      ]),
    ).toBe(
      // Attestations are renewed every round; a renewed one alone is no reason to post again.
      discoveryKey([
        { Port: 443, IP: '192.0.2.1' },
        { Port: 8000, IP: '192.0.2.1', Attestation: 'v1.2.b' },
      ]),
    );
  });
});

describe('dual-stack discovery', () => {
  it('answers the first address of the URL’s family, in port order, and skips one of the other family', async () => {
    const fetch = host({
      443: { json: { IP: '2001:db8::5', Port: 443, Attestation: 'v1.1.v6' } },
      222: new TypeError('refused'),
      3389: { json: { IP: '::ffff:203.0.113.7', Port: 3389, Attestation: 'v1.1.v4' } },
      8000: { json: { IP: '198.51.100.1', Port: 8000, Attestation: 'v1.1.later' } },
    });
    expect(await discoverFamily('http://v4.portal.example', 4, [443, 222, 3389, 8000], fetch)).toEqual({
      Port: 3389,
      IP: '::ffff:203.0.113.7',
      Attestation: 'v1.1.v4',
    });
    expect(await discoverFamily('http://v6.portal.example', 6, [443, 222, 3389, 8000], fetch)).toEqual({
      Port: 443,
      IP: '2001:db8::5',
      Attestation: 'v1.1.v6',
    });
  });

  it('asks the next port only while none has answered with its family', async () => {
    const fetch = host({
      443: new TypeError('refused'),
      222: { json: { IP: '198.51.100.4', Port: 222, Attestation: 'v1.1.v4' } },
      3389: { json: { IP: '198.51.100.9', Port: 3389 } },
      8000: { json: { IP: '198.51.100.9', Port: 8000 } },
    });
    expect(await discoverFamily('http://v4.portal.example', 4, [443, 222, 3389, 8000], fetch)).toMatchObject({
      Port: 222,
      IP: '198.51.100.4',
    });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('asks nothing when the URL is off, and answers null when no port gave its family', async () => {
    const fetch = host({ 443: { json: { IP: '203.0.113.7' } } });
    expect(await discoverFamily('', 4, [443], fetch)).toBeNull();
    expect(fetch).not.toHaveBeenCalled();
    expect(await discoverFamily('http://v6.portal.example', 6, [443], fetch)).toBeNull();
  });

  it.each([
    [
      '203.0.113.7',
      [
        { Port: 443, IP: '203.0.113.7' },
        { Port: 443, IP: '2001:DB8::7' },
      ],
      '2001:db8::7',
    ],
    [
      '2001:db8::7',
      [
        { Port: 443, IP: '::ffff:203.0.113.7' },
        { Port: 443, IP: '2001:db8::7' },
      ],
      '203.0.113.7',
    ],
    ['203.0.113.7', [{ Port: 443, IP: '198.51.100.9' }], null],
    [undefined, [{ Port: 443, IP: '2001:db8::7' }], null],
  ])('beside %s shows the other family’s address of %j: %s', (current, answers, expected) => {
    expect(otherFamilyAddress(current, answers)).toBe(expected);
  });
});
