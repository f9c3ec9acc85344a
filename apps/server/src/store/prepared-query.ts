import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What a prepared query's arguments may be: what both stores bind the same way. */
export type PreparedValue = string | number | null;

/** Stands in for a call's argument while the query is built, to find where its value goes. */
class Placeholder {
  constructor(readonly index: number) {}
}

interface Template<Row> {
  query: CompiledQuery<Row>;
  /** For each compiled parameter: the index of the argument it takes, or null for a constant. */
  slots: (number | null)[];
}

/**
 * A query of fixed shape, built and compiled once per store and then run with each call's values.
 * Kysely otherwise builds, transforms and compiles the query on every call, and on the grant path
 * that costs more than SQLite's own work. Keep it for the hot paths.
 *
 * `build` gets stand-ins for the arguments and must only pass them into the query as values: no
 * logic on them, no `in` lists (their length changes the SQL). The compiled SQL is kept per store
 * dialect and plugins (the executor's adapter), so a transaction of the store reuses it.
 */
export function preparedQuery<Args extends PreparedValue[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Database>, ...args: Args) => Promise<Row[]> {
  const templates = new WeakMap<object, Template<Row>>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let template = templates.get(adapter);
    if (template === undefined) {
      const standIns = args.map((_, index) => new Placeholder(index)) as unknown as Args;
      const query = build(db, ...standIns).compile();
      template = {
        query,
        slots: query.parameters.map((parameter) => (parameter instanceof Placeholder ? parameter.index : null)),
      };
      templates.set(adapter, template);
    }
    const { query, slots } = template;
    const parameters = slots.map((slot, i) => (slot === null ? query.parameters[i] : args[slot]));
    return (await db.executeQuery<Row>({ ...query, parameters })).rows;
  };
}
