import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../errors.js';

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
        done(new BadRequestError({ extra: `${where}: must not contain the NUL character` }));
        return;
      }
    }
    done();
  });
}

/** A value met on the walk, with the way back to the root for naming where it was. */
interface Visit {
  value: unknown;
  key: string | null;
  parent: Visit | null;
}

/**
 * The path to a NUL in `value` (walked through arrays and objects, keys included), or null. The walk
 * keeps its own stack: a body may nest thousands deep (JSON.parse allows it), far past the call stack.
 */
export function pathToNul(value: unknown, path: readonly string[]): readonly string[] | null {
  const pending: Visit[] = [{ value, key: null, parent: null }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const current = visit.value;
    if (typeof current === 'string') {
      if (current.includes(NUL)) return [...path, ...keysTo(visit)];
    } else if (current !== null && typeof current === 'object') {
      // Pushed in reverse, so the first field in the body is the first one named.
      for (const [key, item] of Object.entries(current).reverse()) {
        // A key holding a NUL is named by where it is: its own text is what must not be echoed.
        if (key.includes(NUL)) return [...path, ...keysTo(visit)];
        pending.push({ value: item, key, parent: visit });
      }
    }
  }
  return null;
}

function keysTo(visit: Visit): string[] {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at !== null; at = at.parent) if (at.key !== null) keys.push(at.key);
  return keys.reverse();
}
