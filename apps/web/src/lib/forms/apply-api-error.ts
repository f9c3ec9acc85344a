import type { TFunction } from 'i18next';
import { ApiError } from '../api/api-error';
import { translateErrorKey } from '../api/render-error';

/** The dotted paths of every leaf and branch of a form's values ("Config", "Config.fortios.Url"). */
export function valuePaths(values: unknown, prefix = ''): string[] {
  if (values === null || typeof values !== 'object') return [];
  return Object.entries(values).flatMap(([key, value]) => [
    `${prefix}${key}`,
    ...valuePaths(value, `${prefix}${key}.`),
  ]);
}

/** Where a server refusal belongs in a form: the field's path and the text to show under it. */
export interface FieldRefusal {
  field: string;
  message: string;
}

/**
 * The form field a server `{Err, Extra}` names, or null when it names none of `fields`. Extra is
 * either the field's path (`{Err: 'err.urlMustBeHttp', Extra: 'DiscoverIPURL'}`: the field shows
 * the translated Err) or the path, a colon and a detail (`{Err: 'err.badRequest', Extra:
 * 'UserName: too long'}`: the field shows "Bad request: too long").
 */
export function fieldOfApiError(error: unknown, fields: readonly string[], t: TFunction): FieldRefusal | null {
  if (!(error instanceof ApiError) || error.err === undefined || error.extra === undefined) return null;
  const extra = error.extra.trim();
  const message = translateErrorKey(error.err, t);
  if (fields.includes(extra)) return { field: extra, message };
  const colon = extra.indexOf(':');
  if (colon <= 0) return null;
  const field = extra.slice(0, colon).trim();
  const detail = extra.slice(colon + 1).trim();
  if (!fields.includes(field)) return null;
  return { field, message: detail === '' ? message : `${message}: ${translateErrorKey(detail, t)}` };
}

/** The part of a Mantine form {@link applyApiError} needs. */
export interface FieldErrorTarget {
  getValues: () => unknown;
  setFieldError: (path: string, error: string) => void;
}

/**
 * Shows a server refusal on the field it names. Returns whether it did; when it did not, the caller
 * shows the failure for the form as a whole (with renderError).
 */
export function applyApiError(form: FieldErrorTarget, error: unknown, t: TFunction): boolean {
  const refusal = fieldOfApiError(error, valuePaths(form.getValues()), t);
  if (refusal === null) return false;
  form.setFieldError(refusal.field, refusal.message);
  return true;
}
