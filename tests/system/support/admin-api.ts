import type { PosternServer } from './postern-server.js';

/**
 * The admin API as a script uses it, for arranging what a browser test needs (users, settings).
 * Signs in as postern-admin and postpones its TOTP enrolment, as a newcomer may.
 */
export class AdminApi {
  private constructor(
    private readonly server: PosternServer,
    private readonly cookie: string,
  ) {}

  static async signIn(server: PosternServer): Promise<AdminApi> {
    const login = await fetch(`${server.url}/api/admin/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ UserName: 'postern-admin', Password: server.adminPassword }),
    });
    const pending = sessionCookie(login);
    const deferred = await fetch(`${server.url}/api/admin/otp/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: pending },
      body: JSON.stringify({ deferEnrolment: true }),
    });
    if (deferred.status !== 200) throw new Error(`admin sign-in failed: ${deferred.status} ${await deferred.text()}`);
    return new AdminApi(server, sessionCookie(deferred));
  }

  async call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (JSON.parse(text) as { data: T }).data;
  }

  /** The server's answer as it is, whatever its status (headers included). */
  request(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.server.url}${path}`, {
      method,
      headers: { cookie: this.cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** A local user who signs in with `password`. */
  createLocalUser(userName: string, password: string, extra: Record<string, unknown> = {}) {
    return this.call('POST', '/api/admin/users', {
      Name: `${userName} (test)`,
      UserName: userName,
      AuthType: 'local',
      PlainPassword: password,
      ConfirmPassword: password,
      ...extra,
    });
  }
}

function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((value) => /^(__Host-)?postern_admin_session=/.test(value));
  if (cookie === undefined) throw new Error(`no admin session cookie (status ${response.status})`);
  return cookie.split(';')[0] ?? '';
}
