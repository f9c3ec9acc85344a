import { hostname } from 'node:os';
import { sql } from 'kysely';
import { AuditActions, AuditDetail } from '@postern/protocol';
import type { AppContext } from '../app-context.js';
import { createGelfSender, type GelfMessage, type GelfSender } from '../audit/gelf/index.js';
import { readSettings } from './settings.js';

/** The settings row that records the newest audit entry already sent to the GELF listener. */
const GELF_HIGH_WATER_KEY = 'GELFForwardedUpTo';
/** Entries sent per pass; a backlog drains over a few passes instead of one huge burst. */
const GELF_BATCH = 500;
/** An arbitrary, fixed PostgreSQL advisory lock id: only one replica forwards at a time. */
const GELF_FORWARDER_LOCK = 0x706f7374; // "post"
const WARNING_ACTIONS = new Set<string>([
  AuditActions.UserLoginFailed,
  AuditActions.AdminLoginFailed,
  AuditActions.TotpFailed,
  AuditActions.SignInBlocked,
  AuditActions.SignInSlowed,
]);

/**
 * Applies the settings that change how the server runs, on every replica, by reading them from the
 * store every `start` interval (2 s): DebugMode raises the log level; GELFListenerURL sends the audit
 * log to a GELF listener. The replica that saved a change applies it at once (onConfigChanged); every
 * other replica within one interval plus one pass, so no replica runs on a stale value for longer.
 * (Every other setting is read from the store by the request that needs it: no replica caches one.)
 *
 * Forwarding reads committed entries from the store after a high-water mark, so nothing rolled back
 * is sent, nothing is lost across restarts, and replicas do not send an entry twice.
 */
export class RuntimeSettings {
  readonly #ctx: AppContext;
  readonly #baseLevel: string;
  #gelf: { url: string; sender: GelfSender } | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** Passes in flight: the timer's, and those a settings change asked for (see applyOnce). */
  readonly #passes = new Set<Promise<void>>();
  #stopped = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#baseLevel = ctx.logger.level;
  }

  start(intervalMs = 2_000): void {
    this.#timer = setInterval(() => {
      // One timed pass at a time: a slow store must not pile passes up.
      if (this.#passes.size > 0) return;
      this.applyOnce().catch((error: unknown) =>
        this.#ctx.logger.error({ err: error }, 'applying runtime settings failed'),
      );
    }, intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer, waits for every pass in flight, then closes the GELF sender; later passes do nothing. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    while (this.#passes.size > 0) await Promise.allSettled([...this.#passes]);
    await this.#gelf?.sender.close();
    this.#gelf = null;
  }

  /** One pass: apply the log level, (re)target GELF, forward new audit entries. Nothing once stopped. */
  applyOnce(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    const pass = this.#apply();
    this.#passes.add(pass);
    const done = () => this.#passes.delete(pass);
    pass.then(done, done);
    return pass;
  }

  async #apply(): Promise<void> {
    const settings = await readSettings(this.#ctx.db);
    const level = settings.DebugMode ? 'debug' : this.#baseLevel;
    if (this.#ctx.logger.level !== level) this.#ctx.logger.level = level;
    await this.#retarget(settings.GELFListenerURL);
    if (this.#gelf !== null) await this.#forward(this.#gelf.sender);
  }

  async #retarget(url: string): Promise<void> {
    if (this.#gelf?.url === url) return;
    await this.#gelf?.sender.close();
    this.#gelf = null;
    if (url === '') return;
    try {
      const sender = createGelfSender(url, { host: hostname(), logger: this.#ctx.logger.child({ component: 'gelf' }) });
      this.#gelf = { url, sender };
      // Start from now: turning GELF on sends what happens next, not years of history.
      await this.#setHighWaterIfMissing(await this.#newestAuditId());
    } catch (error) {
      this.#ctx.logger.error({ err: error, url }, 'cannot send the audit log to this GELF listener');
    }
  }

  async #forward(sender: GelfSender): Promise<void> {
    await this.#ctx.db.transaction().execute(async (trx) => {
      if (this.#ctx.dialect === 'postgres') {
        const lock = await sql<{
          locked: boolean;
        }>`select pg_try_advisory_xact_lock(${GELF_FORWARDER_LOCK}) as locked`.execute(trx);
        if (lock.rows[0]?.locked !== true) return;
      }
      const highWater = await trx
        .selectFrom('settings')
        .select('value')
        .where('key', '=', GELF_HIGH_WATER_KEY)
        .executeTakeFirst();
      const after = highWater === undefined ? '' : (JSON.parse(highWater.value) as string);
      const rows = await trx
        .selectFrom('auditLog')
        .selectAll()
        .where('id', '>', after)
        .orderBy('id')
        .limit(GELF_BATCH)
        .execute();
      if (rows.length === 0) return;
      for (const row of rows) sender.send(toGelf(row));
      const newest = rows.at(-1)?.id ?? after;
      await trx
        .insertInto('settings')
        .values({ key: GELF_HIGH_WATER_KEY, value: JSON.stringify(newest), updatedAt: this.#ctx.clock.now() })
        .onConflict((oc) =>
          oc.column('key').doUpdateSet({ value: JSON.stringify(newest), updatedAt: this.#ctx.clock.now() }),
        )
        .execute();
    });
  }

  async #newestAuditId(): Promise<string> {
    const row = await this.#ctx.db
      .selectFrom('auditLog')
      .select('id')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id ?? '';
  }

  async #setHighWaterIfMissing(id: string): Promise<void> {
    await this.#ctx.db
      .insertInto('settings')
      .values({ key: GELF_HIGH_WATER_KEY, value: JSON.stringify(id), updatedAt: this.#ctx.clock.now() })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  }
}

function toGelf(row: { id: string; createdAt: number; action: string; detail: string }): GelfMessage {
  const parsed = AuditDetail.safeParse(safeJson(row.detail));
  const detail = parsed.success ? parsed.data : {};
  return {
    short_message: row.action,
    timestamp: row.createdAt / 1000,
    level: WARNING_ACTIONS.has(row.action) ? 4 : 6,
    _audit_id: row.id,
    _action: row.action,
    _user_name: detail.UserName,
    _admin_name: detail.AdminName,
    _agent_name: detail.AgentName,
    _ip_address: detail.IpAddress,
    _error_message: detail.ErrorMessage,
    _acl_description: detail.AclDescription,
    _description: detail.Description,
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
