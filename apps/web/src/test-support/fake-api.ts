import { vi } from 'vitest';

/** One canned answer of the fake server. */
export interface FakeAnswer {
  status?: number;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as it is instead of `body` (an XML document, say). */
  text?: string;
  headers?: Record<string, string>;
}

/** A request the app made, as the fake server saw it. */
export interface FakeRequest {
  method: string;
  path: string;
  search: string;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * An answer, a function of the request, or an Error to simulate a network failure. A function may
 * answer later (a promise), to hold a call back while the test looks at the page.
 */
export type FakeHandler =
  FakeAnswer | Error | ((request: FakeRequest) => FakeAnswer | Error | Promise<FakeAnswer | Error>);

/** Answers every test gets unless it overrides them: public calls succeed, no session exists. */
const DEFAULT_ROUTES: Record<string, FakeHandler> = {
  'GET /api/theme': {
    body: { data: { Accent: 'grape', HighAccessibility: false, LogoURL: '', LightModeLogoURL: '' } },
  },
  // No single sign-on unless a test configures it (SAML_CONFIGURED): the metadata is then never asked for.
  'GET /api/system_status': {
    body: { data: { IPApi: '', JsBundleHash: 'build-1', UserSAMLConfigured: false, AdminSAMLConfigured: false } },
  },
  'GET /api/status': { status: 401, body: { Err: 'err.invalidSession' } },
  'GET /api/admin/status': { status: 401, body: { Err: 'err.invalidSession' } },
  'POST /api/logout': { body: { data: null } },
  'POST /api/admin/logout': { body: { data: null } },
  'GET /api/saml/metadata': { status: 404, body: { Err: 'err.samlNotConfigured' } },
  'GET /api/admin/saml/metadata': { status: 404, body: { Err: 'err.samlNotConfigured' } },
};

/** What /api/saml/metadata answers when single sign-on is configured. */
export const SAML_METADATA_ANSWER: FakeAnswer = {
  text: '<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="postern"/>',
  headers: { 'content-type': 'application/samlmetadata+xml' },
};

/** The system status of a server with single sign-on set up for users and for admins. */
export const SAML_CONFIGURED_STATUS: FakeAnswer = {
  body: { data: { IPApi: '', JsBundleHash: 'build-1', UserSAMLConfigured: true, AdminSAMLConfigured: true } },
};

/** Routes of a server with single sign-on set up for both realms, whose metadata answers. */
export const SAML_CONFIGURED: Record<string, FakeHandler> = {
  'GET /api/system_status': SAML_CONFIGURED_STATUS,
  'GET /api/saml/metadata': SAML_METADATA_ANSWER,
  'GET /api/admin/saml/metadata': SAML_METADATA_ANSWER,
};

function headerRecord(headers: HeadersInit | undefined): Record<string, string> {
  return Object.fromEntries(new Headers(headers).entries());
}

/**
 * Replaces the global fetch with a fake Postern server keyed by "METHOD /path". It stands in for the
 * network only; every module of the app runs for real.
 */
export function installFakeApi(routes: Record<string, FakeHandler> = {}) {
  const table = { ...DEFAULT_ROUTES, ...routes };
  const requests: FakeRequest[] = [];

  const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString(), 'http://localhost');
    const request: FakeRequest = {
      method: (init?.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      search: url.search,
      body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined,
      headers: headerRecord(init?.headers),
    };
    requests.push(request);
    const handler = table[`${request.method} ${request.path}`];
    const answer: FakeAnswer | Error | Promise<FakeAnswer | Error> =
      handler === undefined
        ? { status: 404, body: { Err: 'err.notFound' } }
        : typeof handler === 'function'
          ? handler(request)
          : handler;
    return Promise.resolve(answer).then((settled) => {
      if (settled instanceof Error) throw settled;
      const text = settled.text ?? (settled.body === undefined ? '' : JSON.stringify(settled.body));
      const headers = { 'content-type': 'application/json', ...settled.headers };
      return new Response(text, { status: settled.status ?? 200, headers });
    });
  });
  vi.stubGlobal('fetch', fetchMock);

  return {
    fetchMock,
    requests,
    /** The requests made to one "METHOD /path". */
    calls: (key: string) => requests.filter((request) => `${request.method} ${request.path}` === key),
  };
}
