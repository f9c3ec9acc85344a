import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { selfSignedCertificate } from '@postern/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReleaseFeedReader, type ReleaseFeedOptions } from './release-feed-source.js';

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
}

const FEED = {
  server: [{ version: '1.10.0', date: '2026-12-01', urgency: 'high', changelog: 'https://example.com/changes/1.10.0' }],
  agent: [{ version: '1.10.0', date: '2026-12-01', changelog: 'https://example.com/changes/agent-1.10.0' }],
};

let dir: string;
let tls: { key: string; cert: string };
const servers: http.Server[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'postern-release-feed-'));
  tls = selfSignedCertificate();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A feed host on 127.0.0.1 (HTTPS with the test certificate when `secure`) answering with `answer`. */
async function feedHost(answer: http.RequestListener, secure = false): Promise<string> {
  const server = secure ? https.createServer(tls, answer) : http.createServer(answer);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/feed.json`;
}

const json =
  (body: unknown, status = 200): http.RequestListener =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

function reader(location: ReleaseFeedOptions['location'], options: Partial<ReleaseFeedOptions> = {}) {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return { feed: new ReleaseFeedReader({ location, logger, ...options }), lines };
}

const warnings = (lines: LogLine[]) => lines.filter((line) => line.level === 40);

describe('the release feed', () => {
  it('reads a feed file', async () => {
    const file = path.join(dir, 'feed.json');
    writeFileSync(file, JSON.stringify(FEED));
    const { feed } = reader({ kind: 'file', path: file });

    await feed.refresh();

    expect(feed.current()?.server.map((release) => release.version)).toEqual(['1.10.0']);
    expect(feed.current()?.agent[0]?.changelog).toBe('https://example.com/changes/agent-1.10.0');
  });

  it('reads a feed over HTTPS, trusting the certificate it was given', async () => {
    const url = await feedHost(json(FEED), true);
    const { feed } = reader({ kind: 'url', url }, { ca: tls.cert });

    await feed.refresh();

    expect(feed.current()?.server[0]).toMatchObject({ version: '1.10.0', urgency: 'high' });
  });

  it('keeps the last good feed when a later read fails, and logs why', async () => {
    let answer: http.RequestListener = json(FEED);
    const url = await feedHost((req, res) => answer(req, res));
    const { feed, lines } = reader({ kind: 'url', url });
    await feed.refresh();

    const notJson: http.RequestListener = (_req, res) => res.end('<html>');
    for (const failure of [json({ error: 'down' }, 503), json({ releases: [] }), notJson]) {
      answer = failure;
      await feed.refresh();
      expect(feed.current()?.server[0]?.version).toBe('1.10.0');
    }

    expect(warnings(lines).map((line) => [line.msg, line.reason])).toEqual([
      ['cannot read the release feed; keeping the last good feed', 'HTTP 503'],
      [
        'the release feed is not valid (see docs/operations.md for its format); keeping the last good feed',
        'has neither a "server" nor an "agent" list',
      ],
      [
        'the release feed is not valid (see docs/operations.md for its format); keeping the last good feed',
        'it is not JSON',
      ],
    ]);
  });

  it('refuses a bad feed with a message saying where, and knows no release then', async () => {
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ server: [{ ...FEED.server[0], version: 'latest' }] }));
    const { feed, lines } = reader({ kind: 'file', path: file });

    await feed.refresh();

    expect(feed.current()).toBeNull();
    expect(warnings(lines)).toEqual([
      expect.objectContaining({
        msg: 'the release feed is not valid (see docs/operations.md for its format); no release is known until a read succeeds',
        reason: 'server.0.version: must be a version such as 1.10.0',
      }),
    ]);
  });

  it('refuses a certificate it does not trust, a redirect, and a host that does not answer in time', async () => {
    const untrusted = await feedHost(json(FEED), true);
    const redirect = await feedHost((_req, res) => res.writeHead(302, { location: untrusted }).end());
    const silent = await feedHost(() => undefined);
    const reasons: (string | undefined)[] = [];
    for (const url of [untrusted, redirect, silent]) {
      const { feed, lines } = reader({ kind: 'url', url }, { timeoutMs: 200 });
      await feed.refresh();
      expect(feed.current()).toBeNull();
      reasons.push(warnings(lines)[0]?.reason);
    }
    expect(reasons[0]).toMatch(/self.signed certificate/i);
    expect(reasons.slice(1)).toEqual(['HTTP 302 (redirects are not followed)', 'no answer within 200 ms']);
  });

  it('stops at once, ending a read the feed host does not answer, without a warning', async () => {
    const url = await feedHost(() => undefined);
    const { feed, lines } = reader({ kind: 'url', url }, { timeoutMs: 60_000 });
    feed.start();
    const started = performance.now();

    await feed.stop();

    expect(performance.now() - started).toBeLessThan(5_000);
    expect(warnings(lines)).toEqual([]);
  });

  it('starts without waiting for the read, and has the feed once it arrives', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const url = await feedHost((req, res) => void held.then(() => json(FEED)(req, res)));
    const { feed } = reader({ kind: 'url', url });

    feed.start();
    expect(feed.current()).toBeNull();
    release();

    await vi.waitFor(() => expect(feed.current()?.server[0]?.version).toBe('1.10.0'));
    await feed.stop();
  });
});
