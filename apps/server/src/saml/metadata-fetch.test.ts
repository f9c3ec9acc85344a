import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchMetadataDocument, MetadataFetchError, type MetadataFetchOptions } from './metadata-fetch.js';

const OPTIONS: MetadataFetchOptions = { timeoutMs: 2_000, maxBytes: 1024, maxRedirects: 3 };

const servers: Server[] = [];

/** A loopback HTTP server answering with `handler`; closed after each test. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function refusal(url: string, options = OPTIONS): Promise<string> {
  const error = await fetchMetadataDocument(url, options).then(
    () => new Error('expected a MetadataFetchError'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MetadataFetchError);
  return (error as Error).message;
}

describe('fetchMetadataDocument', () => {
  it('returns the document', async () => {
    const base = await serve((_request, response) => response.end('<EntityDescriptor/>'));
    expect(await fetchMetadataDocument(`${base}/metadata`, OPTIONS)).toBe('<EntityDescriptor/>');
  });

  it('follows a redirect on the same host', async () => {
    const base = await serve((request, response) => {
      if (request.url === '/old') response.writeHead(302, { location: '/new' }).end();
      else response.end(`at ${request.url}`);
    });
    expect(await fetchMetadataDocument(`${base}/old`, OPTIONS)).toBe('at /new');
  });

  it('refuses a redirect to another host', async () => {
    const other = await serve((_request, response) => response.end('elsewhere'));
    const base = await serve((_request, response) => response.writeHead(301, { location: `${other}/x` }).end());
    expect(await refusal(base)).toMatch(/refused a redirect/);
  });

  it.each(['file:///etc/passwd', 'data:text/xml,<x/>', 'ftp://127.0.0.1/metadata'])(
    'refuses a redirect to %s',
    async (location) => {
      const base = await serve((_request, response) => response.writeHead(302, { location }).end());
      expect(await refusal(base)).toMatch(/must be http or https/);
    },
  );

  it.each(['file:///etc/passwd', 'gopher://127.0.0.1/', 'not a url'])('refuses the URL %s', async (url) => {
    expect(await refusal(url)).toMatch(/http or https|not a URL/);
  });

  it('refuses credentials in the URL', async () => {
    expect(await refusal('https://user:secret@idp.example/metadata')).toMatch(/credentials/);
  });

  it('stops after too many redirects', async () => {
    const base = await serve((request, response) => response.writeHead(302, { location: `${request.url}x` }).end());
    expect(await refusal(`${base}/r`)).toMatch(/too many redirects/);
  });

  it('refuses an answer other than 200', async () => {
    const base = await serve((_request, response) => response.writeHead(404).end('no'));
    expect(await refusal(base)).toMatch(/answered 404/);
  });

  it('refuses a body larger than the cap, declared or streamed', async () => {
    const declared = await serve((_request, response) => response.end('x'.repeat(2048)));
    expect(await refusal(declared)).toMatch(/larger than 1024 bytes/);
    const streamed = await serve((_request, response) => {
      // Chunked, so no Content-Length tells in advance.
      response.write('x'.repeat(800));
      response.end('x'.repeat(800));
    });
    expect(await refusal(streamed)).toMatch(/larger than 1024 bytes/);
  });

  it('gives up at the deadline', async () => {
    const base = await serve(() => undefined);
    expect(await refusal(base, { ...OPTIONS, timeoutMs: 200 })).toMatch(/no answer within 200 ms/);
  });
});
