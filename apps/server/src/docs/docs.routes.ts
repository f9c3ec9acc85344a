import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { AGENT_DOCS_PATH } from '@postern/protocol';
import { NotFoundError } from '../errors.js';

/** The repository's docs/ directory, whether we run from src (tests) or dist (production). */
export const DEFAULT_DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs');

/** The agent documentation, the target of the console's documentation links. */
export const AGENT_DOCS_FILE = 'agents.md';

/**
 * Documentation that ships with Postern, served by Postern itself so the console never sends an
 * administrator to a site the project does not own. Public: it is the same text as the repository's
 * docs/, holds nothing about this installation, and is read on a host being set up without a session.
 * Served as plain text (Markdown reads well as it is), re-read on each request so an update is served.
 */
export function registerDocsRoutes(app: FastifyInstance, docsDir: string = DEFAULT_DOCS_DIR): void {
  app.get(AGENT_DOCS_PATH, async (_request, reply) => {
    let text: string;
    try {
      text = await readFile(path.join(docsDir, AGENT_DOCS_FILE), 'utf8');
    } catch {
      throw new NotFoundError({ extra: 'the agent documentation is missing from this installation' });
    }
    return reply.header('cache-control', 'no-cache').type('text/plain; charset=utf-8').send(text);
  });
}
