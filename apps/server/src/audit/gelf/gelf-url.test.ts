import { describe, expect, it } from 'vitest';
import { parseGelfUrl } from './gelf-url.js';

describe('parseGelfUrl', () => {
  it.each([
    ['udp://graylog.example.com:12201', { protocol: 'udp', host: 'graylog.example.com', port: 12201 }],
    ['tcp://127.0.0.1:12201', { protocol: 'tcp', host: '127.0.0.1', port: 12201 }],
    ['tls://logs.example:6514/', { protocol: 'tls', host: 'logs.example', port: 6514 }],
    ['TCP://graylog:1', { protocol: 'tcp', host: 'graylog', port: 1 }],
    ['udp://[::1]:12201', { protocol: 'udp', host: '::1', port: 12201 }],
    ['tls://[2001:db8::5]:65535', { protocol: 'tls', host: '2001:db8::5', port: 65535 }],
    ['  udp://graylog:12201  ', { protocol: 'udp', host: 'graylog', port: 12201 }],
  ])('accepts %s', (url, expected) => {
    expect(parseGelfUrl(url)).toEqual(expected);
  });

  it.each([
    ['http://graylog:12201', /udp, tcp, or tls/],
    ['https://graylog:12201', /udp, tcp, or tls/],
    ['ws://graylog:12201', /udp, tcp, or tls/],
    ['graylog:12201', /udp, tcp, or tls/],
    ['', /not a valid URL/],
    ['udp://', /host/],
    ['udp://graylog', /port/],
    ['udp://graylog:', /port/],
    ['tcp://graylog:0', /port/],
    ['tcp://graylog:65536', /not a valid URL/],
    ['tcp://user:secret@graylog:12201', /credentials/],
    ['tcp://graylog:12201/gelf', /only scheme, host and port/],
    ['tcp://graylog:12201?x=1', /only scheme, host and port/],
    ['tcp://gray%6Cog:12201', /host/],
    ['tcp://gray_log:12201', /host/],
  ])('refuses %j', (url, message) => {
    expect(() => parseGelfUrl(url)).toThrow(message);
  });
});
