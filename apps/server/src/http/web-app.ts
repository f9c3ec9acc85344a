import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { errorBody } from './error-handler.js';
import { ErrorCodes } from '@postern/protocol';

/** The built single-page app the server hands out. */
export interface WebApp {
  /** Directory of the build, or null when no build exists. */
  dir: string | null;
  indexHtml: string | null;
  /** Changes with every build (it hashes index.html, which names the hashed bundles). */
  bundleHash: string;
}

/** apps/web/dist beside this package, whether we run from src (tests) or dist (production). */
const DEFAULT_WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../web/dist');

export function loadWebApp(dir: string | null): WebApp {
  const root = dir ?? DEFAULT_WEB_DIR;
  const indexPath = path.join(root, 'index.html');
  if (!existsSync(indexPath)) return { dir: null, indexHtml: null, bundleHash: 'unbuilt' };
  const indexHtml = readFileSync(indexPath, 'utf8');
  const bundleHash = createHash('sha256').update(indexHtml).digest('hex').slice(0, 16);
  return { dir: root, indexHtml, bundleHash };
}

const NOT_BUILT_PAGE =
  '<!doctype html><meta charset="utf-8"><title>Postern</title>' +
  '<p>The Postern web app has not been built. Run <code>npm run build</code> (or <code>npm start</code>) and reload.</p>';

/**
 * Serves the build's files, answers unknown /api paths with a JSON 404 and every other unknown path
 * with index.html, so the app's own router can handle it (and redirect unknown ones).
 */
export async function registerWebApp(app: FastifyInstance, webApp: WebApp): Promise<void> {
  if (webApp.dir !== null) {
    await app.register(fastifyStatic, {
      root: webApp.dir,
      wildcard: false,
      index: false,
      setHeaders(response, filePath) {
        // Vite puts content hashes in asset names, so they never change; everything else is revalidated.
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        response.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    const wantsPage = request.method === 'GET' || request.method === 'HEAD';
    if (pathname.startsWith('/api/') || pathname === '/api' || !wantsPage || pathname.startsWith('/assets/')) {
      return reply.code(404).send(errorBody(ErrorCodes.notFound));
    }
    return reply
      .code(webApp.indexHtml === null ? 503 : 200)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(webApp.indexHtml ?? NOT_BUILT_PAGE);
  });
}
