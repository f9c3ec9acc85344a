import { ConfigurationError } from '../outcomes.js';

/**
 * A configuration field a knoc cannot work without, trimmed; throws `missing` when it is absent or
 * blank (the error reaches the grant, so it names the field).
 */
export function requiredText(value: string | undefined, missing: string): string {
  const text = (value ?? '').trim();
  if (text === '') throw new ConfigurationError(missing);
  return text;
}

/** A secret the backend must have, as given (never trimmed: spaces may be part of it); throws `missing` when empty. */
export function requiredSecret(value: string | undefined, missing: string): string {
  if (value === undefined || value === '') throw new ConfigurationError(missing);
  return value;
}
