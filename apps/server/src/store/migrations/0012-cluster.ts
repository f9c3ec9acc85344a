import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Several servers on one PostgreSQL (SCALE-OUT.md).
 *
 * `leases`: a named job (the grant and session sweepers) runs on one server at a time, the one
 * holding its lease; a lease not renewed expires and another server takes it over.
 *
 * On PostgreSQL, triggers ring a doorbell for every change an agent must hear of, inside the
 * transaction that makes it: delivered on commit, never for a rollback, and from every code path
 * that writes (present or future) without anyone remembering to. The payload names what changed,
 * never its data; each server reads the store afresh (cluster/change-listener.ts). The channel is
 * per schema, so installs (and tests) sharing a database do not hear each other. Each payload
 * starts with its kind and the writer's application_name, so a server skips its own changes (it
 * delivered them already):
 *   e <writer> <aclId> <ip>          a grant started, ended, or its expiry moved
 *   s <writer> <agentId>             a knoc or backend of the agent changed: resend its whole state
 *   d <writer> <agentId> <reason>    the agent was deleted or its token rotated: close its connection
 *   t <writer> <agentId> <connId>    the agent's newer connection was admitted: close any older one
 * SQLite is single-process and needs none of this.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (column) => column.primaryKey())
    .addColumn('holder', 'text', (column) => column.notNull())
    .addColumn('expires_at', 'bigint', (column) => column.notNull())
    .execute();
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;

  await sql`
    create function postern_doorbell(kind text, variadic args text[]) returns void language sql as $$
      select pg_notify(
        'postern_' || current_schema(),
        array_to_string(array[kind, current_setting('application_name')] || args, ' ')
      )
    $$`.execute(db);

  await sql`
    create function postern_grant_changed() returns trigger language plpgsql as $$
    begin
      perform postern_doorbell('e', new.acl_id, new.ip);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger grants_doorbell_insert after insert on grants
    for each row execute function postern_grant_changed()`.execute(db);
  await sql`
    create trigger grants_doorbell_update after update of ended_at, expires_at on grants
    for each row
    when (old.ended_at is distinct from new.ended_at or old.expires_at is distinct from new.expires_at)
    execute function postern_grant_changed()`.execute(db);

  await sql`
    create function postern_knoc_changed() returns trigger language plpgsql as $$
    declare
      agent text;
    begin
      for agent in
        select distinct agent_id from backends
        where agent_id is not null
          and id in (
            case when tg_op <> 'INSERT' then old.backend_id end,
            case when tg_op <> 'DELETE' then new.backend_id end
          )
      loop
        perform postern_doorbell('s', agent);
      end loop;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger knocs_doorbell after insert or update or delete on knocs
    for each row execute function postern_knoc_changed()`.execute(db);

  await sql`
    create function postern_backend_changed() returns trigger language plpgsql as $$
    begin
      if tg_op <> 'INSERT' and old.agent_id is not null then
        perform postern_doorbell('s', old.agent_id);
      end if;
      if tg_op <> 'DELETE' and new.agent_id is not null
        and (tg_op = 'INSERT' or new.agent_id is distinct from old.agent_id) then
        perform postern_doorbell('s', new.agent_id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger backends_doorbell after insert or update or delete on backends
    for each row execute function postern_backend_changed()`.execute(db);

  await sql`
    create function postern_agent_changed() returns trigger language plpgsql as $$
    begin
      if tg_op = 'DELETE' then
        perform postern_doorbell('d', old.id, 'deleted');
      elsif new.token_hash is distinct from old.token_hash then
        perform postern_doorbell('d', new.id, 'token-rotated');
      elsif new.connection_id is not null and new.connection_id is distinct from old.connection_id then
        perform postern_doorbell('t', new.id, new.connection_id);
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger agents_doorbell after update of token_hash, connection_id or delete on agents
    for each row execute function postern_agent_changed()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`drop trigger agents_doorbell on agents`.execute(db);
    await sql`drop trigger backends_doorbell on backends`.execute(db);
    await sql`drop trigger knocs_doorbell on knocs`.execute(db);
    await sql`drop trigger grants_doorbell_update on grants`.execute(db);
    await sql`drop trigger grants_doorbell_insert on grants`.execute(db);
    for (const name of ['agent', 'backend', 'knoc', 'grant']) {
      await sql`drop function ${sql.raw(`postern_${name}_changed`)}()`.execute(db);
    }
    await sql`drop function postern_doorbell(text, variadic text[])`.execute(db);
  }
  await db.schema.dropTable('leases').execute();
}
