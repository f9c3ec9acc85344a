import type { FastifyInstance } from 'fastify';
import { BadRequestError } from './errors.js';

const NUL = '\u0000';

/**
 * Refuses, on every route, a request whose body, query or path parameters hold the NUL character
 * anywhere. No field of the API has a use for it, and it does harm where it lands: PostgreSQL
 * cannot store it in text (the query would fail with a 500), C libraries such as an LDAP bind read
 * it as the end of the string, and logs and audit viewers cut at it. One rule for every route, so
 * a new field is covered without anyone remembering; the answer names where it was found.
 */
export function installNulCharacterRule(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    for (const [container, value] of [
      ['params', request.params],
      ['querystring', request.query],
      ['body', request.body],
    ] as const) {
      const found = pathToNul(value, []);
      if (found !== null) {
        // Named as a failed validation names a field: `UserName`, `Config.Hostname`, or the container.
        const where = found.length === 0 ? container : found.join('.');
        done(new BadRequestError(`${where}: must not contain the NUL character`));
        return;
      }
    }
    done();
  });
}

/** The path to a NUL in `value` (walked through arrays and objects, keys included), or null. */
export function pathToNul(value: unknown, path: readonly string[]): readonly string[] | null {
  if (typeof value === 'string') return value.includes(NUL) ? path : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = pathToNul(item, [...path, String(index)]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      // A key holding a NUL is named by where it is: its own text is what must not be echoed.
      if (key.includes(NUL)) return path;
      const found = pathToNul(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}
