import type { TFunction } from 'i18next';
import { ApiError } from './api-error';

const ERROR_KEY_PREFIX = 'err.';

/** Translates `text` when it is an `err.` key with a translation; otherwise returns it unchanged. */
export function translateErrorKey(text: string, t: TFunction): string {
  if (!text.startsWith(ERROR_KEY_PREFIX)) return text;
  // defaultValue keeps an unknown code readable instead of returning nothing.
  return t(text, { defaultValue: text });
}

/**
 * Turns any failure into the text a person sees (spec §8): the translated Err, then ': ' and Extra
 * (itself translated when it is an `err.` key); without an Err, the error's own message; failing
 * that, "An internal server error occurred".
 */
export function renderError(error: unknown, t: TFunction): string {
  if (error instanceof ApiError && error.err !== undefined) {
    const message = translateErrorKey(error.err, t);
    return error.extra === undefined || error.extra === ''
      ? message
      : `${message}: ${translateErrorKey(error.extra, t)}`;
  }
  if (error instanceof Error && error.message !== '') return error.message;
  if (typeof error === 'string' && error !== '') return translateErrorKey(error, t);
  return t('error.internal');
}
