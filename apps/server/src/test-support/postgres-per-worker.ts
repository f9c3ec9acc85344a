import pg from 'pg';

/**
 * Setup file of the server tests: each test worker gets a PostgreSQL database of its own, named after
 * POSTERN_TEST_DATABASE_URL's database and the worker (`test_worker_2`), and the variable is pointed
 * at it for this worker.
 *
 * Why: test files run in parallel workers, and each test creates and drops a schema of its own. The
 * migrator's introspection reads every schema of its database, so a schema another worker drops in
 * the middle of that read fails the migration ("schema … does not exist"). Databases do not share
 * their catalogs; within one worker the tests run one after another. The databases stay (empty of
 * test schemas) for the next run.
 */
const base = process.env.POSTERN_TEST_DATABASE_URL;
const worker = process.env.VITEST_POOL_ID;
if (base && worker !== undefined && process.env.POSTERN_TEST_DATABASE_WORKER === undefined) {
  const url = new URL(base);
  const name = `${decodeURIComponent(url.pathname.slice(1)) || 'postgres'}_worker_${worker}`;
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (exists.rowCount === 0) {
      try {
        await client.query(`create database "${name.replaceAll('"', '""')}"`);
      } catch (error) {
        // Another process (a worker of the same id in an overlapping run) made it first.
        const code = (error as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw error;
      }
    }
  } finally {
    await client.end();
  }
  url.pathname = `/${encodeURIComponent(name)}`;
  process.env.POSTERN_TEST_DATABASE_URL = url.toString();
  // Marks the variable as rewritten, so a second load of this file in the same process keeps it.
  process.env.POSTERN_TEST_DATABASE_WORKER = worker;
}
