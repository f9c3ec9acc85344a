import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  ErrorCodes,
  GrantStatus,
  V1_LOGIN_PATH,
  type AclEntry,
  type ApiErrorBody,
  type UserSessionInfo,
  type UserStatus,
} from '@postern/protocol';

/** A knoc as the fake knows it, with how its grants behave. */
export interface FakeKnoc {
  id: string;
  name: string;
  /** Default true: granted only when asked (POST /api/grant); false: at the session's first status call. */
  clickToGrant?: boolean;
  hideFromUsers?: boolean;
  /** The knoc excludes the caller's address (its grant is refused with err.aclDisabledForUser). */
  disableForUser?: boolean;
  /** Default true; false: its grants show AgentOffline and a grant is refused with 409 err.agentOffline. */
  agentOnline?: boolean;
  /**
   * What a grant becomes after `pendingPolls` status calls: on the device, refused by it (with
   * `error`), never settled, or an allowlist entry (Published, then Read once fetched).
   */
  outcome?: 'granted' | 'error' | 'pending' | 'allowlist';
  /** Default 1. */
  pendingPolls?: number;
  error?: string;
  /** Caps a grant's length like the knoc's MaximumGrantDuration; default: the session's end. */
  maxGrantMs?: number;
}

/** A refusal of the key sign-in, as the real server would answer it. */
export interface FakeRefusal {
  status: number;
  code: string;
  retryAfterSeconds?: number;
}

interface FakeGrant {
  status: number;
  error: string;
  expiresAt: number;
  endedAt: number | null;
  pollsLeft: number;
}

/** One session the fake signed in. */
export interface FakeSession {
  token: string;
  userName: string;
  signedInAt: number;
  endsAt: number;
  ended: boolean;
  statusCalls: number;
  grants: Map<string, FakeGrant>;
}

/** One request the fake received, for tests to check what was asked and in which order. */
export interface FakeRequest {
  method: string;
  path: string;
  /** The session token the request's cookie carried, or null. */
  session: string | null;
  authorization: string | null;
  body: unknown;
  /** The fake's time when it arrived. */
  at: number;
}

export interface FakeServerOptions {
  /** The fake's time; share it with the client's test clock. */
  now: () => number;
  /** API key → the user it signs in (and how it is refused, if it is). */
  keys?: Record<string, { userName: string; refusal?: FakeRefusal }>;
  knocs?: FakeKnoc[];
  sessionLengthMs?: number;
  /** `__Host-postern_session` behind TLS; `postern_session` on a plain-HTTP server. */
  cookieName?: string;
}

/**
 * A FAKE of the Postern server's contract for machine clients, on 127.0.0.1: POST /api/v1/login
 * with an API key, then GET /api/status, POST /api/grant, DELETE
 * /api/sessions/current/granted-acls/{id} and POST /api/logout with the session cookie, answering
 * `{data}` or `{Err, Extra}` as the real server does (apps/server). It is not the server: it holds
 * a few sessions in memory so that the client's own tests can check what it asks and how it reacts
 * to each answer. The system tests (tests/system) run the client against the real server.
 */
export class FakePosternServer {
  readonly requests: FakeRequest[] = [];
  readonly sessions = new Map<string, FakeSession>();
  readonly keys: Map<string, { userName: string; refusal?: FakeRefusal }>;
  knocs: FakeKnoc[];
  licensed = true;
  userLicensed = true;
  sessionLengthMs: number;
  cookieName: string;
  /** The address the fake reports the client at (the real server sees the socket's). */
  address = '198.51.100.7';
  /** While set, every connection is cut without an answer (the server is unreachable). */
  down = false;
  /** While set, every request is answered with this (a store outage, a throttle, a proxy's page). */
  answerAll: { status: number; body: string; headers?: Record<string, string> } | null = null;
  readonly #now: () => number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(options: FakeServerOptions) {
    this.#now = options.now;
    this.keys = new Map(Object.entries(options.keys ?? {}));
    this.knocs = options.knocs ?? [];
    this.sessionLengthMs = options.sessionLengthMs ?? 8 * 3600_000;
    this.cookieName = options.cookieName ?? 'postern_session';
    this.#server = createServer((request, response) => void this.#handle(request, response));
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Starts the fake on 127.0.0.1 on a free port. */
  static async start(options: FakeServerOptions): Promise<FakePosternServer> {
    const fake = new FakePosternServer(options);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** The base URL, http://127.0.0.1:port. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** The sessions not ended, in sign-in order. */
  liveSessions(): FakeSession[] {
    return [...this.sessions.values()].filter((session) => !session.ended && session.endsAt > this.#now());
  }

  /** Requests to `path` (and `method`), in order. */
  requestsTo(method: string, path: string): FakeRequest[] {
    return this.requests.filter((request) => request.method === method && request.path === path);
  }

  /** Ends every session, as an admin ending them or a restart without the store would. */
  endAllSessions(): void {
    for (const session of this.sessions.values()) session.ended = true;
  }

  /** Forgets every grant, as a store restored from an older backup would. */
  dropGrants(): void {
    for (const session of this.sessions.values()) session.grants.clear();
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.down) {
      request.socket.destroy();
      return;
    }
    const body = await readBody(request);
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const cookie = request.headers.cookie ?? '';
    const token = new RegExp(`(?:^|;\\s*)${this.cookieName}=([^;]+)`).exec(cookie)?.[1] ?? null;
    this.requests.push({
      method: request.method ?? '',
      path,
      session: token,
      authorization: request.headers.authorization ?? null,
      body,
      at: this.#now(),
    });
    if (this.answerAll !== null) {
      response.writeHead(this.answerAll.status, { 'content-type': 'application/json', ...this.answerAll.headers });
      response.end(this.answerAll.body);
      return;
    }
    const route = `${request.method} ${path}`;
    if (route === `POST ${V1_LOGIN_PATH}`) return this.#login(request, response);
    if (route === 'POST /api/logout') {
      const session = token === null ? undefined : this.sessions.get(token);
      if (session !== undefined) this.#endSession(session);
      response.setHeader('set-cookie', `${this.cookieName}=; Path=/; Max-Age=0`);
      return send(response, 200, { data: null });
    }
    const session = token === null ? undefined : this.sessions.get(token);
    if (session === undefined || session.ended || session.endsAt <= this.#now()) {
      return sendError(response, 401, { Err: ErrorCodes.invalidSession });
    }
    if (route === 'GET /api/status') return send(response, 200, { data: this.#status(session) });
    if (route === 'POST /api/grant') return this.#grant(session, body, response);
    const revoke = /^\/api\/sessions\/current\/granted-acls\/([^/]+)$/.exec(path);
    if (request.method === 'DELETE' && revoke !== null) {
      const knoc = this.knocs.find((candidate) => candidate.id === decodeURIComponent(revoke[1] ?? ''));
      if (knoc === undefined) return sendError(response, 404, { Err: ErrorCodes.aclNotAvailable });
      const grant = session.grants.get(knoc.id);
      if (grant !== undefined) grant.endedAt = this.#now();
      return send(response, 200, { data: this.#entry(session, knoc) });
    }
    sendError(response, 404, { Err: ErrorCodes.notFound });
  }

  #login(request: IncomingMessage, response: ServerResponse): void {
    const key = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const account = key === undefined ? undefined : this.keys.get(key);
    if (account === undefined) return sendError(response, 401, { Err: ErrorCodes.unauthorised });
    if (account.refusal !== undefined) {
      const { status, code, retryAfterSeconds } = account.refusal;
      if (retryAfterSeconds !== undefined) response.setHeader('retry-after', String(retryAfterSeconds));
      return sendError(response, status, { Err: code });
    }
    const now = this.#now();
    const session: FakeSession = {
      token: randomBytes(16).toString('hex'),
      userName: account.userName,
      signedInAt: now,
      endsAt: now + this.sessionLengthMs,
      ended: false,
      statusCalls: 0,
      grants: new Map(),
    };
    this.sessions.set(session.token, session);
    const info: UserSessionInfo = {
      Name: `The ${account.userName}`,
      UserName: account.userName,
      AuthType: 'apikey',
      Ends: new Date(session.endsAt).toISOString(),
      KioskMode: false,
      NewUserDashboard: true,
    };
    response.setHeader('set-cookie', [
      `${this.cookieName}=${session.token}; Path=/; HttpOnly; SameSite=Strict; Expires=${new Date(session.endsAt).toUTCString()}`,
    ]);
    send(response, 200, { data: info });
  }

  #status(session: FakeSession): UserStatus {
    session.statusCalls += 1;
    const licensed = this.licensed && this.userLicensed;
    if (licensed && session.statusCalls === 1) {
      // Knocs without ClickToGrant are granted at the session's first status call.
      for (const knoc of this.knocs) {
        if (knoc.clickToGrant === false && knoc.agentOnline !== false && knoc.disableForUser !== true) {
          this.#startGrant(session, knoc);
        }
      }
    }
    for (const knoc of this.knocs) this.#advance(session, knoc);
    return {
      Name: `The ${session.userName}`,
      UserName: session.userName,
      CurrentAddress: this.address,
      Ends: new Date(session.endsAt).toISOString(),
      KioskMode: false,
      ValidUntil: null,
      Licensed: this.licensed,
      UserLicensed: this.userLicensed,
      AuthType: 'apikey',
      NewUserDashboard: true,
      AutoBrowseToURI: null,
      ACLs: licensed ? this.knocs.map((knoc) => this.#entry(session, knoc)) : [],
      Language: null,
    };
  }

  #grant(session: FakeSession, body: unknown, response: ServerResponse): void {
    if (!this.licensed || !this.userLicensed) return sendError(response, 403, { Err: ErrorCodes.licenceRequired });
    const aclId = typeof body === 'object' && body !== null && 'ACLID' in body ? String(body.ACLID) : '';
    const knoc = this.knocs.find((candidate) => candidate.id === aclId);
    if (knoc === undefined) return sendError(response, 404, { Err: ErrorCodes.aclNotAvailable });
    if (knoc.disableForUser === true) return sendError(response, 403, { Err: ErrorCodes.aclDisabledForUser });
    if (knoc.agentOnline === false) return sendError(response, 409, { Err: ErrorCodes.agentOffline });
    this.#startGrant(session, knoc);
    send(response, 200, { data: this.#entry(session, knoc) });
  }

  #startGrant(session: FakeSession, knoc: FakeKnoc): void {
    const now = this.#now();
    session.grants.set(knoc.id, {
      status: knoc.outcome === 'allowlist' ? GrantStatus.Published : GrantStatus.Pending,
      error: '',
      expiresAt: Math.min(session.endsAt, now + (knoc.maxGrantMs ?? Number.POSITIVE_INFINITY)),
      endedAt: null,
      pollsLeft: knoc.pendingPolls ?? 1,
    });
  }

  /** A status call moves a grant on: after its pending polls it reaches the knoc's outcome. */
  #advance(session: FakeSession, knoc: FakeKnoc): void {
    const grant = session.grants.get(knoc.id);
    if (grant === undefined || grant.endedAt !== null || knoc.outcome === 'pending') return;
    if (grant.pollsLeft > 0) {
      grant.pollsLeft -= 1;
      return;
    }
    if (knoc.outcome === 'error') {
      grant.status = GrantStatus.GrantError;
      grant.error = knoc.error ?? 'the device refused';
    } else if (knoc.outcome === 'allowlist') {
      grant.status = GrantStatus.Read;
    } else {
      grant.status = GrantStatus.Granted;
    }
  }

  #endSession(session: FakeSession): void {
    session.ended = true;
    for (const grant of session.grants.values()) grant.endedAt ??= this.#now();
  }

  /** The knoc's entry for this session, shaped as the real server's acl-entry.ts shapes it. */
  #entry(session: FakeSession, knoc: FakeKnoc): AclEntry {
    const now = this.#now();
    const grant = session.grants.get(knoc.id);
    const running = grant !== undefined && grant.endedAt === null && grant.expiresAt > now;
    let status: number = GrantStatus.Created;
    if (running) status = grant.status;
    else if (grant !== undefined) status = GrantStatus.Revoked;
    if (knoc.agentOnline === false) status = GrantStatus.AgentOffline;
    return {
      ID: knoc.id,
      ACLID: knoc.id,
      ParentID: null,
      Description: knoc.name,
      URL: '',
      Icon: '',
      Category: '',
      Status: status,
      Error: running && grant.status === GrantStatus.GrantError ? grant.error : '',
      ExpiredAfter: running ? new Date(grant.expiresAt).toISOString() : null,
      ClickToGrant: knoc.clickToGrant !== false,
      CGNATOpen: false,
      HideFromUsers: knoc.hideFromUsers === true,
      DisableForUser: knoc.disableForUser === true,
      GrantTypeFixedIps: false,
      AutoBrowseUsers: false,
      Config: { UriToken: '' },
    };
  }
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, body: ApiErrorBody): void {
  send(response, status, body);
}
