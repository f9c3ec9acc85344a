/*
 * Instants relative to now, as the server sends them (ISO strings). Test data that says "signed in
 * two hours ago" keeps saying it whenever the test runs, so relative-time texts stay the same.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The ISO instant `hours` ago. */
export const hoursAgo = (hours: number) => new Date(Date.now() - hours * HOUR_MS).toISOString();

/** The ISO instant `days` ago. */
export const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

/** The ISO instant `days` after `now` (a test's fixed clock, or the real one). */
export const daysFromNow = (days: number, now = Date.now()) => new Date(now + days * DAY_MS).toISOString();
