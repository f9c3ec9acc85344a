import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { startInterval, type IntervalHandle } from '../lib/start-interval.js';
import { parseReleaseFeed, type ReleaseFeed } from './release-feed.js';

/** Where the operator's release feed is (POSTERN_RELEASE_FEED): a file, or an https URL. */
export type ReleaseFeedLocation = { kind: 'file'; path: string } | { kind: 'url'; url: string };

/** The releases the server knows of, for the admin status. */
export interface ReleaseSource {
  /** The last feed read successfully; null when none is configured or none was read yet. */
  current(): ReleaseFeed | null;
  /** Reads the feed now and then on a period, in the background: start never waits for it. */
  start(): void;
  /** Stops the period and ends a read in flight (a stop never waits for a slow feed host). */
  stop(): Promise<void>;
}

/** No feed: no release is known but the running one. */
export const NO_RELEASE_FEED: ReleaseSource = {
  current: () => null,
  start: () => undefined,
  stop: () => Promise.resolve(),
};

/** The feed is read again this often (releases are rare; a feed host should not be hammered). */
export const RELEASE_FEED_REFRESH_MS = 6 * 60 * 60 * 1000;
/** A read taking longer than this is given up (and the last good feed kept). */
export const RELEASE_FEED_TIMEOUT_MS = 10_000;
/** A feed bigger than this is refused: a few hundred releases fit in a fraction of it. */
const MAX_FEED_BYTES = 1024 * 1024;

export interface ReleaseFeedOptions {
  location: ReleaseFeedLocation;
  logger: Logger;
  refreshMs?: number;
  timeoutMs?: number;
  /** Extra roots for an https feed (tests' self-signed certificate); default: Node's store. */
  ca?: string;
}

/**
 * Reads the operator's release feed: once at start (in the background) and every
 * {@link RELEASE_FEED_REFRESH_MS}. A read that fails (unreachable, too slow, not a feed) is logged
 * and changes nothing: the last good feed stays what the console is told.
 */
export class ReleaseFeedReader implements ReleaseSource {
  readonly #options: ReleaseFeedOptions;
  #feed: ReleaseFeed | null = null;
  #interval: IntervalHandle | null = null;
  #first: Promise<void> = Promise.resolve();
  /** Aborted by stop: ends the request in flight. */
  readonly #stopping = new AbortController();

  constructor(options: ReleaseFeedOptions) {
    this.#options = options;
  }

  current(): ReleaseFeed | null {
    return this.#feed;
  }

  start(): void {
    if (this.#interval !== null) return;
    this.#first = this.refresh();
    this.#interval = startInterval({
      name: 'release feed refresh',
      intervalMs: this.#options.refreshMs ?? RELEASE_FEED_REFRESH_MS,
      logger: this.#options.logger,
      run: () => this.refresh(),
    });
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.all([this.#interval?.stop(), this.#first]);
    this.#interval = null;
  }

  /** Reads the feed once; never throws (a failure is logged, the last good feed kept). */
  async refresh(): Promise<void> {
    const { location, logger } = this.#options;
    const source = location.kind === 'file' ? location.path : location.url;
    const kept = this.#feed === null ? 'no release is known until a read succeeds' : 'keeping the last good feed';
    let text: string;
    try {
      text = location.kind === 'file' ? await readFeedFile(location.path) : await this.#fetch(location.url);
    } catch (error) {
      if (this.#stopping.signal.aborted) return;
      logger.warn({ releaseFeed: source, reason: errorText(error) }, `cannot read the release feed; ${kept}`);
      return;
    }
    const parsed = parseReleaseFeed(text);
    if (!parsed.ok) {
      logger.warn(
        { releaseFeed: source, reason: parsed.reason },
        `the release feed is not valid (see docs/operations.md for its format); ${kept}`,
      );
      return;
    }
    this.#feed = parsed.feed;
    logger.debug(
      { releaseFeed: source, server: parsed.feed.server.length, agent: parsed.feed.agent.length },
      'release feed read',
    );
  }

  /** GETs the feed: TLS verified, no redirect followed, a 2xx answer of at most 1 MiB in time. */
  #fetch(url: string): Promise<string> {
    const timeoutMs = this.#options.timeoutMs ?? RELEASE_FEED_TIMEOUT_MS;
    const target = new URL(url);
    const ca = this.#options.ca;
    return new Promise((resolve, reject) => {
      const options = {
        headers: { accept: 'application/json' },
        signal: this.#stopping.signal,
        ...(ca === undefined ? {} : { ca }),
      };
      const request = target.protocol === 'https:' ? https.get(target, options) : http.get(target, options);
      const fail = (message: string) => {
        clearTimeout(timer);
        request.destroy();
        reject(new Error(message));
      };
      const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
      request.on('error', (error) => fail(error.message));
      request.on('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          response.resume();
          const redirect = status >= 300 && status <= 399 ? ' (redirects are not followed)' : '';
          fail(`HTTP ${status}${redirect}`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_FEED_BYTES) fail(`the feed is larger than ${MAX_FEED_BYTES} bytes`);
          else chunks.push(chunk);
        });
        response.on('error', (error) => fail(error.message));
        response.on('end', () => {
          clearTimeout(timer);
          resolve(Buffer.concat(chunks).toString('utf8'));
        });
      });
    });
  }
}

async function readFeedFile(file: string): Promise<string> {
  const info = await stat(file);
  if (info.size > MAX_FEED_BYTES) throw new Error(`the feed is larger than ${MAX_FEED_BYTES} bytes`);
  return readFile(file, 'utf8');
}

function errorText(error: unknown): string {
  if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    !error.message.includes(error.code)
  ) {
    return `${error.message} (${error.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
