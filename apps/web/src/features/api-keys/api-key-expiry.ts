import dayjs from 'dayjs';

/** The spec's expiry choices of a new key: 12 months, 24 months, never. */
export const API_KEY_EXPIRY_CHOICES = ['12m', '24m', 'never'] as const;
export type ApiKeyExpiryChoice = (typeof API_KEY_EXPIRY_CHOICES)[number];

const MONTHS: Record<Exclude<ApiKeyExpiryChoice, 'never'>, number> = { '12m': 12, '24m': 24 };

/**
 * The ExpiredAfter to send for a choice made at `now`: an ISO instant, or undefined for "never"
 * (spec: "Never expiring means no expiry is sent").
 */
export function expiredAfterFor(choice: ApiKeyExpiryChoice, now: Date): string | undefined {
  if (choice === 'never') return undefined;
  return dayjs(now).add(MONTHS[choice], 'month').toISOString();
}

/** Whether a stored key never expires, has expired, or is still valid at `now`. */
export function expiryState(expiredAfter: string | null, now: number): 'never' | 'expired' | 'valid' {
  if (expiredAfter === null) return 'never';
  return Date.parse(expiredAfter) <= now ? 'expired' : 'valid';
}
