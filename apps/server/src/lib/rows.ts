import { AccountLanguage } from '@postern/protocol';

/** SQLite returns booleans as 0/1 and PostgreSQL as true/false; this reads either. */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

/** An epoch-milliseconds column as an ISO 8601 string, or null. */
export function isoOrNull(value: number | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** A stored language preference, or null when none was chosen (or the value is not one the app ships). */
export function storedLanguage(value: string | null): AccountLanguage | null {
  const parsed = AccountLanguage.safeParse(value);
  return parsed.success ? parsed.data : null;
}
