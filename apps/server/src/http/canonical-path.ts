import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../errors.js';

/** RFC 3986 unreserved characters: percent-encoding one of them only disguises the path. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
/** Characters that change a path's structure when a decoder turns them back into themselves. */
const STRUCTURAL = new Set(['/', '\\']);

/**
 * Why a request path is not in its one canonical spelling, or null when it is. The router decodes
 * percent-escapes before matching, so `/api/%61dmin/agents` reaches the same route as
 * `/api/admin/agents`; anything that compares, logs or caches by path sees another string. Refusing
 * every other spelling of a path leaves exactly one: browsers, curl and our clients never send these.
 *
 * Refused: a path that does not start with `/`; an empty segment (`//`); a `.` or `..` segment; a
 * backslash; and a percent-escape of an unreserved character, of `/` or `\`, or of a control character.
 */
export function nonCanonicalPath(url: string): string | null {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.startsWith('/')) return 'the path must start with /';
  if (path.includes('\\')) return 'backslash in the path';
  if (path.includes('//')) return 'empty path segment';
  for (const escape of path.matchAll(/%([0-9A-Fa-f]{2})/g)) {
    const code = Number.parseInt(escape[1] ?? '', 16);
    const character = String.fromCharCode(code);
    if (UNRESERVED.test(character) || STRUCTURAL.has(character) || code < 0x20 || code === 0x7f) {
      return 'percent-encoded character that needs no encoding';
    }
  }
  if (path.split('/').some((segment) => segment === '.' || segment === '..')) return 'dot segment';
  return null;
}

/**
 * Refuses (400) every request whose path is not canonical, first thing for every route and for
 * unknown paths alike; the routes' own checks then never see a second spelling.
 */
export function installCanonicalPathRule(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const reason = nonCanonicalPath(request.url);
    done(reason === null ? undefined : new BadRequestError({ extra: `path: ${reason}` }));
  });
}
