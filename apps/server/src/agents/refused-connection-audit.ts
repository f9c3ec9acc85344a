import type { Logger } from 'pino';
import { AuditActions } from '@postern/protocol';
import type { HubContext } from '../app-context.js';
import { recordAudit } from '../audit/audit.js';

/** At most one refused-connection entry per agent in this window (per server process). */
export const REFUSED_CONNECTION_AUDIT_WINDOW_MS = 60_000;

/** A refused agent connection, as the audit log and the server log record it. */
export interface RefusedConnection {
  agentId: string;
  agentName: string;
  address: string;
  reason: string;
  /** The fingerprint of the key the connection presented, when its proof verified. */
  fingerprint: string | null;
}

/**
 * Audits refused agent connections (AgentAuthFailed) without letting a token holder flood the log:
 * per agent, one entry per window; the refusals in between are only logged, with a count, and the
 * next entry says how many there were. The count lives in this process, so each replica writes at
 * most its own one entry a window.
 */
export class RefusedConnectionAudit {
  readonly #windows = new Map<string, { startedAt: number; suppressed: number }>();
  /** Refusals logged but not audited in an agent's expired windows, until its next entry says so. */
  readonly #notAudited = new Map<string, number>();

  constructor(private readonly ctx: HubContext) {}

  /** Logs the refusal, and audits it unless this agent's window already has an entry. Never throws. */
  async record(refused: RefusedConnection, log: Logger): Promise<void> {
    const now = this.ctx.clock.now();
    this.#forgetExpired(now);
    const window = this.#windows.get(refused.agentId);
    const fields = {
      address: refused.address,
      reason: refused.reason,
      keyFingerprint: refused.fingerprint ?? undefined,
    };
    if (window !== undefined) {
      window.suppressed += 1;
      log.warn({ ...fields, notAudited: window.suppressed }, 'agent connection refused (audited once a minute)');
      return;
    }
    this.#windows.set(refused.agentId, { startedAt: now, suppressed: 0 });
    log.warn(fields, 'agent connection refused');
    const previous = this.#notAudited.get(refused.agentId) ?? 0;
    this.#notAudited.delete(refused.agentId);
    const description = [
      refused.fingerprint === null ? null : `Presented key ${refused.fingerprint}`,
      previous === 0 ? null : `${previous} more refused since the last entry (logged only)`,
    ].filter((part) => part !== null);
    try {
      await recordAudit(this.ctx.db, now, AuditActions.AgentAuthFailed, {
        AgentName: refused.agentName,
        IpAddress: refused.address,
        ErrorMessage: refused.reason,
        ...(description.length === 0 ? {} : { Description: description.join('; ') }),
      });
    } catch (error) {
      log.warn({ err: error }, 'could not audit a refused agent connection');
    }
  }

  #forgetExpired(now: number): void {
    for (const [agentId, window] of this.#windows) {
      if (now - window.startedAt < REFUSED_CONNECTION_AUDIT_WINDOW_MS) continue;
      this.#windows.delete(agentId);
      if (window.suppressed > 0) {
        this.#notAudited.set(agentId, (this.#notAudited.get(agentId) ?? 0) + window.suppressed);
      }
    }
  }
}
