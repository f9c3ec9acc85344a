import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/** The `name=value` pair of a Set-Cookie header whose name ends with `nameSuffix`. */
export function cookieFrom(response: LightMyRequestResponse, nameSuffix: string): string | undefined {
  const header = response.headers['set-cookie'];
  const cookies = Array.isArray(header) ? header : header === undefined ? [] : [header];
  const match = cookies.find((cookie) => cookie.split('=')[0]?.endsWith(nameSuffix));
  return match?.split(';')[0];
}

/** Every Set-Cookie header of a response. */
export function setCookies(response: LightMyRequestResponse): string[] {
  const header = response.headers['set-cookie'];
  return Array.isArray(header) ? header : header === undefined ? [] : [header];
}

/** Signs a user in through the API and returns the session cookie to send back. */
export async function signInUser(app: FastifyInstance, userName: string, password: string, kiosk = false) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/login',
    payload: { UserName: userName, Password: password, KioskMode: kiosk },
  });
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  const cookie = cookieFrom(response, 'postern_session');
  if (cookie === undefined) throw new Error('sign-in set no session cookie');
  return cookie;
}

export async function signInAdmin(app: FastifyInstance, userName: string, password: string) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/admin/login',
    payload: { UserName: userName, Password: password },
  });
  if (response.statusCode !== 200) throw new Error(`admin sign-in failed: ${response.statusCode} ${response.body}`);
  const cookie = cookieFrom(response, 'postern_admin_session');
  if (cookie === undefined) throw new Error('admin sign-in set no session cookie');
  return cookie;
}
