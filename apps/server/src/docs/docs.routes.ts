import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { AGENT_DOCS_PATH, API_DOCS_PATH, LICENSING_DOCS_PATH } from '@postern/protocol';
import { NotFoundError } from '../errors.js';

/** The repository's docs/ directory, whether we run from src (tests) or dist (production). */
export const DEFAULT_DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../docs');

/** The agent documentation, the target of the console's documentation links. */
export const AGENT_DOCS_FILE = 'agents.md';

/** Using the API with an API key; the OpenAPI document's description names it. */
export const API_DOCS_FILE = 'api.md';

/** Licences: what one gives, how to get and install one; the console's default licensing link. */
export const LICENSING_DOCS_FILE = 'licensing.md';

/** Each served page: its path, its file in docs/, and what a missing file is called in the 404. */
const DOC_PAGES = [
  { path: AGENT_DOCS_PATH, file: AGENT_DOCS_FILE, name: 'the agent documentation' },
  { path: API_DOCS_PATH, file: API_DOCS_FILE, name: 'the API documentation' },
  { path: LICENSING_DOCS_PATH, file: LICENSING_DOCS_FILE, name: 'the licensing documentation' },
] as const;

/**
 * Documentation that ships with Postern, served by Postern itself so the console never sends an
 * administrator to a site the project does not own. Public: it is the same text as the repository's
 * docs/, holds nothing about this installation, and is read on a host being set up without a session.
 * Served as plain text (Markdown reads well as it is), re-read on each request so an update is served.
 */
export function registerDocsRoutes(app: FastifyInstance, docsDir: string = DEFAULT_DOCS_DIR): void {
  for (const page of DOC_PAGES) {
    app.get(page.path, async (_request, reply) => {
      let text: string;
      try {
        text = await readFile(path.join(docsDir, page.file), 'utf8');
      } catch {
        throw new NotFoundError({ extra: `${page.name} is missing from this installation` });
      }
      return reply.header('cache-control', 'no-cache').type('text/plain; charset=utf-8').send(text);
    });
  }
}
