import { readFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AGENT_DOCS_PATH, API_DOCS_PATH, ErrorCodes, LICENSING_DOCS_PATH } from '@postern/protocol';
import { installErrorHandler } from '../http/error-handler.js';
import { useTestApp } from '../test-support/use-test-app.js';
import {
  AGENT_DOCS_FILE,
  API_DOCS_FILE,
  DEFAULT_DOCS_DIR,
  LICENSING_DOCS_FILE,
  registerDocsRoutes,
} from './docs.routes.js';

describe('the agent documentation', () => {
  const t = useTestApp('sqlite');

  it('is the repository’s docs/agents.md, served to anyone as plain text', async () => {
    const response = await t.app.inject({ method: 'GET', url: AGENT_DOCS_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.body).toBe(readFileSync(path.join(DEFAULT_DOCS_DIR, AGENT_DOCS_FILE), 'utf8'));
  });

  it('covers installing an agent and each capability the console links to', async () => {
    const { body } = await t.app.inject({ method: 'GET', url: AGENT_DOCS_PATH });
    for (const heading of ['## Installing an agent on a host', '## Capabilities']) expect(body).toContain(heading);
    for (const capability of ['**IPSet**', '**Custom Script**', '**HAProxy**', '**Other**']) {
      expect(body).toContain(capability);
    }
  });

  it('serves the API documentation, docs/api.md, the same way', async () => {
    const response = await t.app.inject({ method: 'GET', url: API_DOCS_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe(readFileSync(path.join(DEFAULT_DOCS_DIR, API_DOCS_FILE), 'utf8'));
    for (const subject of ['/api/openapi.json', 'apiuser', 'Authorization: Bearer', '"Err"']) {
      expect(response.body).toContain(subject);
    }
  });

  it("serves the licensing page, docs/licensing.md, the console's default licensing link", async () => {
    const response = await t.app.inject({ method: 'GET', url: LICENSING_DOCS_PATH });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe(readFileSync(path.join(DEFAULT_DOCS_DIR, LICENSING_DOCS_FILE), 'utf8'));
    for (const subject of ['POSTERN_LICENSING_URL', 'postern licence issue', 'Settings → Licence']) {
      expect(response.body).toContain(subject);
    }
  });

  it('answers 404 when an installation lacks the file', async () => {
    const app = Fastify();
    installErrorHandler(app);
    registerDocsRoutes(app, path.join(DEFAULT_DOCS_DIR, 'no-such-directory'));
    try {
      for (const url of [AGENT_DOCS_PATH, API_DOCS_PATH, LICENSING_DOCS_PATH]) {
        const response = await app.inject({ method: 'GET', url });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toMatchObject({ Err: ErrorCodes.notFound });
      }
    } finally {
      await app.close();
    }
  });
});
