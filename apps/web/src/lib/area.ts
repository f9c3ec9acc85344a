/** The two halves of the app, each with its own session, login page, colour scheme and tab icon. */
export type Area = 'user' | 'admin';

/** Which area a path belongs to: everything under /admin is the admin console. */
export function areaOf(pathname: string): Area {
  return pathname === '/admin' || pathname.startsWith('/admin/') ? 'admin' : 'user';
}

/** Where a person of this area signs in. */
export const LOGIN_PATH: Record<Area, string> = { user: '/', admin: '/admin' };

/** The tab icon of each area (files in public/). */
export const FAVICON: Record<Area, string> = { user: '/favicon.svg', admin: '/favicon-admin.svg' };
