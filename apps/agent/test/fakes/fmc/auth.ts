import type { IncomingMessage } from 'node:http';
import type { Reply, Serial } from './reply.js';

/** How long an FMC access token lasts. */
export const FMC_TOKEN_LIFE_MS = 30 * 60_000;
/** Refreshes FMC allows per login before a full login is needed. */
const MAX_REFRESHES = 3;

interface Session {
  access: string;
  refresh: string;
  refreshes: number;
  expiresAt: number;
}

/**
 * The FMC fake's token login (`generatetoken` with Basic auth), refresh (`refreshtoken`, at most 3
 * times per login) and the sessions they open, whose access tokens last 30 minutes.
 */
export class FmcAuth {
  /** Every token issued (tests check none leaks). */
  readonly issuedTokens: string[] = [];
  /** generatetoken calls accepted. */
  logins = 0;
  /** refreshtoken calls accepted. */
  refreshes = 0;
  password: string;
  readonly #sessions: Session[] = [];

  constructor(
    readonly username: string,
    password: string,
    private readonly headers: () => Record<string, string>,
    private readonly now: () => number,
    private readonly serial: Serial,
  ) {
    this.password = password;
  }

  /** Whether `access` is a current access token, unexpired at `now`. */
  valid(access: string | string[] | undefined, now: number): boolean {
    const session = this.#sessions.find((s) => s.access === access);
    return session !== undefined && session.expiresAt > now;
  }

  /** The current access tokens stop working; refresh still works. */
  expireAccessTokens(): void {
    for (const session of this.#sessions) session.expiresAt = 0;
  }

  /** Every session ends: access and refresh tokens both refused. */
  endSessions(): void {
    this.#sessions.length = 0;
  }

  /** `POST /api/fmc_platform/v1/auth/generatetoken`. */
  login(req: IncomingMessage, { answer, error }: Reply): void {
    const expected = `Basic ${Buffer.from(`${this.username}:${this.password}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      error(401, 'Authentication failed');
      return;
    }
    this.logins++;
    const session: Session = {
      access: this.#token('access'),
      refresh: this.#token('refresh'),
      refreshes: 0,
      expiresAt: this.now() + FMC_TOKEN_LIFE_MS,
    };
    this.#sessions.push(session);
    answer(204, null, this.#tokenHeaders(session));
  }

  /** `POST /api/fmc_platform/v1/auth/refreshtoken`. */
  refresh(req: IncomingMessage, { answer, error }: Reply): void {
    const session = this.#sessions.find(
      (s) => s.access === req.headers['x-auth-access-token'] && s.refresh === req.headers['x-auth-refresh-token'],
    );
    if (session === undefined || session.refreshes >= MAX_REFRESHES) {
      error(401, 'Invalid refresh token');
      return;
    }
    this.refreshes++;
    session.refreshes++;
    session.access = this.#token('access');
    session.expiresAt = this.now() + FMC_TOKEN_LIFE_MS;
    answer(204, null, this.#tokenHeaders(session));
  }

  #tokenHeaders(session: Session): Record<string, string> {
    return { 'X-auth-access-token': session.access, 'X-auth-refresh-token': session.refresh, ...this.headers() };
  }

  #token(kind: string): string {
    const token = `fmc-${kind}-${this.serial.next()}-${Math.random().toString(36).slice(2, 12)}`;
    this.issuedTokens.push(token);
    return token;
  }
}
