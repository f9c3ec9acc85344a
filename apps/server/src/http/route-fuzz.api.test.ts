import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ALL_ERROR_CODES } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import {
  CALLER_ADDRESS,
  INTENDED_CALLERS,
  RouteCallers,
  concretePath,
  describeRoute,
  type CallerKind,
} from '../test-support/route-callers.js';
import {
  CONTENT_TYPES,
  HEADER_SETS,
  PARAM_VALUES,
  QUERIES,
  RAW_BODIES,
  pick,
  randomJson,
  randomObject,
  seededRandom,
  type Random,
} from '../test-support/fuzz-values.js';
import { loadWebApp } from './web-app.js';
import { routeTable, type RouteTableEntry } from './route-access.js';

/*
 * The SAML key routes answer an admin with a new RSA 3072 key and certificate: made for every
 * request, the key generation was three quarters of this file's time. The fuzz is about what the
 * routes make of the request, not about keys (settings.api.test.ts tests those): each certificate
 * is still built, signed and stored, on one key made for the file.
 */
vi.mock('../lib/x509.js', async (importOriginal) =>
  (await import('../test-support/one-rsa-key.js')).withOneRsaKey(await importOriginal()),
);

/**
 * A bounded fuzz over the server's own route table: every route gets malformed bodies, parameters,
 * queries and headers from its intended caller and from strangers. Whatever comes back is never a
 * 500, and every error is the `{Err, Extra}` envelope with a known code. Seeded, so a failure is
 * reproducible: the message names the seed, the route and the request.
 */
const SEED = Number(process.env.POSTERN_FUZZ_SEED ?? 20_261_124);
const REQUESTS_PER_ROUTE = 20;

interface FuzzedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

function fuzzedRequest(random: Random, route: RouteTableEntry, params: Record<string, string>): FuzzedRequest {
  const fuzzParams = random() < 0.3;
  const fuzzedValues = Object.fromEntries(
    Object.keys(params).map((name) => [name, fuzzParams ? pick(random, PARAM_VALUES) : (params[name] ?? '')]),
  );
  const ids: Record<string, string> = fuzzParams
    ? { id: pick(random, PARAM_VALUES), grantId: pick(random, PARAM_VALUES) }
    : {};
  const url =
    concretePath(route, { ...fuzzedValues, ...ids }, fuzzParams ? pick(random, PARAM_VALUES) : 'x') +
    (random() < 0.3 ? pick(random, QUERIES) : '');
  const headers: Record<string, string> = random() < 0.4 ? { ...pick(random, HEADER_SETS) } : {};
  if (route.method === 'GET' || route.method === 'HEAD') return { method: route.method, url, headers };
  const shape = random();
  let payload: string;
  if (shape < 0.45) payload = JSON.stringify(randomObject(random));
  else if (shape < 0.7) payload = JSON.stringify(randomJson(random));
  else payload = pick(random, RAW_BODIES);
  headers['content-type'] = random() < 0.8 ? 'application/json' : pick(random, CONTENT_TYPES);
  return { method: route.method, url, headers, payload };
}

/** Why this answer breaks the rules, or null: no 5xx, and every error in the envelope with a known code. */
function violation(request: FuzzedRequest, status: number, body: string, contentType: unknown): string | null {
  if (status >= 500) return `status ${status}`;
  if (status < 400 || request.method === 'HEAD') return null;
  if (!String(contentType).startsWith('application/json')) return `error as ${String(contentType)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'error body is not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null) return 'error body is not an object';
  const { Err, Extra, ...rest } = parsed as Record<string, unknown>;
  if (typeof Err !== 'string' || !(ALL_ERROR_CODES as readonly string[]).includes(Err))
    return `unknown Err ${String(Err)}`;
  if (Extra !== undefined && typeof Extra !== 'string') return 'Extra is not a string';
  if (Object.keys(rest).length > 0) return `extra fields ${Object.keys(rest).join(', ')}`;
  if (/FST_|statusCode|at .*\.(ts|js):\d+/.test(body)) return 'framework or stack details in the body';
  return null;
}

describe('route fuzz (sqlite)', () => {
  const webDir = mkdtempSync(path.join(tmpdir(), 'postern-fuzz-web-'));
  writeFileSync(path.join(webDir, 'index.html'), '<!doctype html><title>Postern</title>');
  const t = useTestApp('sqlite', { webApp: loadWebApp(webDir) });
  let callers: RouteCallers;
  beforeEach(async () => {
    callers = await RouteCallers.create(t.ctx);
  });
  afterAll(() => {
    rmSync(webDir, { recursive: true, force: true });
  });

  it(`answers ${REQUESTS_PER_ROUTE} malformed requests per route without a 500, every error in the envelope`, async () => {
    const random = seededRandom(SEED);
    const problems: string[] = [];
    let sent = 0;
    for (const route of routeTable(t.app)) {
      for (let index = 0; index < REQUESTS_PER_ROUTE; index += 1) {
        const caller: CallerKind = random() < 0.6 ? pick(random, INTENDED_CALLERS[route.access]) : 'none';
        const request = fuzzedRequest(random, route, callers.params);
        const response = await t.app.inject({
          method: request.method as 'GET',
          url: request.url,
          remoteAddress: CALLER_ADDRESS,
          headers: { ...(await callers.headers(caller)), ...request.headers },
          ...(request.payload === undefined ? {} : { payload: request.payload }),
        });
        sent += 1;
        const problem = violation(request, response.statusCode, response.body, response.headers['content-type']);
        if (problem !== null) {
          problems.push(
            `${describeRoute(route)} as ${caller}: ${problem} for ${request.method} ${request.url.slice(0, 120)} ` +
              `${JSON.stringify(request.headers).slice(0, 120)} ${(request.payload ?? '').slice(0, 120)} ` +
              `→ ${response.body.slice(0, 160)} (seed ${SEED})`,
          );
        }
      }
    }
    expect(sent).toBeGreaterThan(2_000);
    expect(problems).toEqual([]);
  }, 120_000);
});
