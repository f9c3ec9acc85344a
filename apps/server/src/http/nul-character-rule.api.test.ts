import type { LightMyRequestResponse } from 'fastify';
import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { useTestApp } from '../test-support/use-test-app.js';
import {
  CALLER_ADDRESS,
  INTENDED_CALLERS,
  RouteCallers,
  concretePath,
  describeRoute,
} from '../test-support/route-callers.js';
import { routeTable } from './route-access.js';
import { pathToNul } from './nul-character-rule.js';

describe('pathToNul', () => {
  it.each([
    ['a plain text', 'fine', null],
    ['a text with NUL', 'a\u0000b', []],
    ['a nested field', { Config: { Hostname: 'fw\u0000' } }, ['Config', 'Hostname']],
    ['an array item', { AclIds: ['a', '\u0000'] }, ['AclIds', '1']],
    ['a key, named by where it is', { Config: { 'x\u0000': 'y' } }, ['Config']],
    ['numbers and nulls', { n: 1, z: null, b: true }, null],
    ['the first of two', { A: 'a\u0000', B: ['\u0000'] }, ['A']],
    ['a value nested far deeper than the call stack goes', deeplyNested(100_000, '\u0000'), Array(100_000).fill('0')],
    ['nothing in a deep nest', deeplyNested(100_000, 'fine'), null],
  ])('finds %s', (_case, value, expected) => {
    expect(pathToNul(value, [])).toEqual(expected);
  });
});

/**
 * Every route of the server's own route table, called by its intended caller with a NUL in the
 * body or the query, is refused before its handler: PostgreSQL cannot store a NUL (it answered
 * 500 for a sign-in name) and an LDAP bind would read it as the end of the password.
 */
describe('the NUL character on every route (sqlite)', () => {
  const t = useTestApp('sqlite');
  let callers: RouteCallers;
  beforeEach(async () => {
    callers = await RouteCallers.create(t.ctx);
  });

  it('is refused in a body field or a query parameter with 400 naming where it was', async () => {
    const wrong: string[] = [];
    for (const route of routeTable(t.app)) {
      const caller = INTENDED_CALLERS[route.access][0] ?? 'none';
      const url = concretePath(route, callers.params);
      const hasBody = !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
      const send = async (payload: string | object | undefined, contentType?: string) =>
        t.app.inject({
          method: route.method as 'GET',
          url: hasBody ? url : `${url}?Probe=a%00b`,
          remoteAddress: CALLER_ADDRESS,
          headers: { ...(await callers.headers(caller)), ...(contentType ? { 'content-type': contentType } : {}) },
          ...(payload === undefined ? {} : { payload }),
        });
      let response = await send(hasBody ? { Name: 'Mallory', Description: 'x\u0000y' } : undefined);
      if (response.statusCode === 302) {
        // A route a browser posts a form to (the SAML ACS), which takes no JSON: the same in its form.
        response = await send('SAMLResponse=x\u0000y', 'application/x-www-form-urlencoded');
      }
      if (route.method === 'HEAD') continue;
      const field = hasBody ? 'Description' : 'Probe';
      if (!refusedForNul(response, field)) {
        wrong.push(`${describeRoute(route)} as ${caller}: ${response.statusCode} ${response.body.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

/**
 * The refusal as the route's caller gets it: the API's 400 envelope; a browser's SAML post is sent
 * back to its login page carrying the same error; the catch-all under /api answers unknown methods
 * 404 before anything else.
 */
function refusedForNul(response: LightMyRequestResponse, field: string): boolean {
  if (response.statusCode === 302) return String(response.headers.location).includes(`error=${ErrorCodes.badRequest}`);
  if (response.statusCode === 404) return response.json<{ Err: string }>().Err === ErrorCodes.notFound;
  const body = response.json<{ Err: string; Extra?: string }>();
  return (
    response.statusCode === 400 &&
    body.Err === ErrorCodes.badRequest &&
    body.Extra === `${field}: must not contain the NUL character`
  );
}

/** `depth` arrays, one inside the other, around `innermost`: what a hostile body can hold. */
function deeplyNested(depth: number, innermost: unknown): unknown {
  let value = innermost;
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
}
