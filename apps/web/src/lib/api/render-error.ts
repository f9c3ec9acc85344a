import type { TFunction } from 'i18next';
import { ErrorCodes } from '@postern/protocol';
import { ApiError } from './api-error';

const ERROR_KEY_PREFIX = 'err.';

/** The rate limiter's Extra: a whole number of seconds with an "s", e.g. "840s". */
const WAIT_IN_SECONDS = /^(\d+)s$/;

/** Translates `text` when it is an `err.` key with a translation; otherwise returns it unchanged. */
export function translateErrorKey(text: string, t: TFunction): string {
  if (!text.startsWith(ERROR_KEY_PREFIX)) return text;
  // defaultValue keeps an unknown code readable instead of returning nothing.
  return t(text, { defaultValue: text });
}

/** A wait as a number and the unit a person would say it in ("40 seconds", "14 minutes", "3 hours"). */
export function waitInWords(seconds: number): { value: number; unit: 'second' | 'minute' | 'hour' | 'day' } {
  // Rounded up: telling someone to come back too early only earns them another refusal.
  if (seconds < 60) return { value: Math.max(1, Math.ceil(seconds)), unit: 'second' };
  if (seconds < 90 * 60) return { value: Math.ceil(seconds / 60), unit: 'minute' };
  if (seconds < 48 * 3600) return { value: Math.ceil(seconds / 3600), unit: 'hour' };
  return { value: Math.ceil(seconds / 86_400), unit: 'day' };
}

/** How long a 429 asks to wait: the server's Extra ("840s"), else its Retry-After header. */
function rateLimitWait(error: ApiError): number | null {
  const match = error.extra === undefined ? null : WAIT_IN_SECONDS.exec(error.extra.trim());
  if (match?.[1] !== undefined) return Number(match[1]);
  return error.retryAfterSeconds ?? null;
}

/**
 * Turns any failure into the text a person sees (spec §8): the translated Err, then ': ' and Extra
 * (itself translated when it is an `err.` key); without an Err, the error's own message; failing
 * that, "An internal server error occurred". The one exception is the rate limit, whose wait is
 * said in words of the current language ("… try again in 14 minutes") rather than as "840s".
 */
export function renderError(error: unknown, t: TFunction): string {
  if (error instanceof ApiError && error.err !== undefined) {
    if (error.err === ErrorCodes.tooManyRequests) {
      const wait = rateLimitWait(error);
      if (wait !== null) {
        const { value, unit } = waitInWords(wait);
        // i18next formats {{when, relativetime}} with Intl.RelativeTimeFormat in the t function's language.
        return t('error.tooManyRequestsRetry', { when: value, formatParams: { when: { range: unit } } });
      }
    }
    const message = translateErrorKey(error.err, t);
    return error.extra === undefined || error.extra === ''
      ? message
      : `${message}: ${translateErrorKey(error.extra, t)}`;
  }
  if (error instanceof Error && error.message !== '') return error.message;
  if (typeof error === 'string' && error !== '') return translateErrorKey(error, t);
  return t('error.internal');
}
