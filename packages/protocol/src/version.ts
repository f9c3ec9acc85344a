/** The release this code belongs to; the server reports it and compares agents against it. */
export const POSTERN_VERSION = '1.9.0';

/** Agents older than this cannot talk to this server. */
export const MINIMUM_AGENT_VERSION = '1.6.0';

/**
 * Where the server serves the agent documentation (docs/agents.md of this repository, as plain
 * text; apps/server/src/docs/docs.routes.ts). The console's documentation links point here.
 */
export const AGENT_DOCS_PATH = '/api/docs/agents';

/**
 * Where the server serves docs/licensing.md: what a licence gives and how to install one. The
 * console's licensing links go here unless the operator set POSTERN_LICENSING_URL.
 */
export const LICENSING_DOCS_PATH = '/api/docs/licensing';

/** Where the server serves docs/api.md: using the API with an API key (the OpenAPI document names it). */
export const API_DOCS_PATH = '/api/docs/api';
