import type { Logger } from 'pino';

/** Why a session stopped before (or at) its end. Kept for the audit trail and the session lists. */
export type SessionEndReason =
  | 'logout'
  | 'invalidated'
  | 'expired'
  | 'superseded'
  | 'account-changed'
  | 'account-deleted'
  | 'session-limit'
  | 'second-factor-passed';

/** One user session that has ended (logout, expiry, invalidation, account change, deletion). */
export interface EndedUserSession {
  sessionId: string;
  userId: string;
  reason: SessionEndReason;
}

export type UserSessionsEndedListener = (ended: readonly EndedUserSession[]) => void | Promise<void>;

/**
 * The hook for everything that must follow a user session's end — above all the grant engine, which
 * revokes the session's grants. Services emit after their transaction has committed, so a listener
 * never acts on a change that was rolled back. A failing listener is logged and does not affect the
 * others or the caller.
 */
export class SessionEvents {
  readonly #listeners = new Set<UserSessionsEndedListener>();

  constructor(private readonly logger: Logger) {}

  /** Registers a listener; returns a function that removes it. */
  onUserSessionsEnded(listener: UserSessionsEndedListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener; resolves when they have all finished. */
  async userSessionsEnded(ended: readonly EndedUserSession[]): Promise<void> {
    if (ended.length === 0) return;
    await Promise.all(
      [...this.#listeners].map(async (listener) => {
        try {
          await listener(ended);
        } catch (error) {
          this.logger.error({ err: error, sessions: ended.length }, 'a session-ended listener failed');
        }
      }),
    );
  }
}
