import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ErrorCodes } from '@postern/protocol';
import { errorBody } from './error-handler.js';

/** The page and bundle hash of the build being served right now. */
export interface WebAppBuild {
  indexHtml: string | null;
  /** Changes with every build (it hashes index.html, which names the hashed bundles). */
  bundleHash: string;
}

/** The built single-page app the server hands out. */
export interface WebApp {
  /** Directory of the build. */
  dir: string;
  /** The current build; a rebuild while the server runs is picked up on the next request. */
  current(): WebAppBuild;
}

/** apps/web/dist beside this package, whether we run from src (tests) or dist (production). */
const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist');
const UNBUILT: WebAppBuild = { indexHtml: null, bundleHash: 'unbuilt' };

/**
 * Serves the web app from `dir` (default: the build beside the server). index.html is re-read when
 * its modification time changes, so a rebuild is served, and announced through the bundle hash,
 * without a restart.
 */
export function loadWebApp(dir: string | null): WebApp {
  const root = dir ?? DEFAULT_WEB_DIR;
  const indexPath = path.join(root, 'index.html');
  let cached: { mtimeMs: number; build: WebAppBuild } | null = null;
  return {
    dir: root,
    current() {
      let mtimeMs: number;
      try {
        mtimeMs = statSync(indexPath).mtimeMs;
      } catch {
        cached = null;
        return UNBUILT;
      }
      if (cached?.mtimeMs !== mtimeMs) {
        const indexHtml = readFileSync(indexPath, 'utf8');
        const bundleHash = createHash('sha256').update(indexHtml).digest('hex').slice(0, 16);
        cached = { mtimeMs, build: { indexHtml, bundleHash } };
      }
      return cached.build;
    },
  };
}

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Postern</title>' +
  '<p>The Postern web app has not been built. Run <code>npm run build</code> (or <code>npm start</code>) and reload.</p>';

/**
 * Serves the build's files, answers unknown /api paths with a JSON 404 and every other unknown path
 * with index.html, so the app's own router can handle it (and redirect unknown ones).
 */
export async function registerWebApp(app: FastifyInstance, webApp: WebApp): Promise<void> {
  await app.register(fastifyStatic, {
    root: webApp.dir,
    // Files are looked up per request rather than listed at start, so a rebuild's new assets are served.
    wildcard: true,
    index: false,
    // Our setHeaders decides caching; the plugin's default would override it with max-age=0.
    cacheControl: false,
    // Listed in the OpenAPI document like every other route (the plugin hides its route by default).
    schemaHide: false,
    setHeaders(response, filePath) {
      // Vite puts content hashes in asset names, so they never change; everything else is revalidated.
      const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
      response.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });

  const sendApp = (reply: FastifyReply) => {
    const { indexHtml } = webApp.current();
    return reply
      .code(indexHtml === null ? 503 : 200)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(indexHtml ?? NOT_BUILT_PAGE);
  };

  // The static handler would treat "/" as a directory listing request; it is the app's entry page.
  app.get('/', (_request, reply) => sendApp(reply));

  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    const wantsPage = request.method === 'GET' || request.method === 'HEAD';
    if (pathname.startsWith('/api/') || pathname === '/api' || !wantsPage || pathname.startsWith('/assets/')) {
      return reply.code(404).send(errorBody(ErrorCodes.notFound));
    }
    return sendApp(reply);
  });
}
