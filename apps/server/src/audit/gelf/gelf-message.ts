import type { GelfMessage } from './types.js';

/** GELF's rule for additional field names: a leading underscore, then letters, digits, `_`, `.` or `-`. */
const FIELD_NAME = /^_[\w.-]+$/;
const DEFAULT_LEVEL = 6;

/** The wire form: GELF's fixed fields plus the additional fields that passed the rules. */
export type GelfPayload = Record<string, string | number>;

/**
 * Completes `message` into a valid GELF 1.1 payload: adds version and host, defaults the timestamp to
 * `nowMs` and the level to 6, and drops additional fields GELF would refuse (`_id`, names without the
 * underscore or with other characters, values that are neither a string nor a finite number).
 */
function toGelfPayload(message: GelfMessage, host: string, nowMs: number): GelfPayload {
  const shortMessage = typeof message.short_message === 'string' ? message.short_message : '';
  const payload: GelfPayload = {
    version: '1.1',
    host,
    // Graylog refuses an empty short_message; a placeholder keeps the rest of the entry.
    short_message: shortMessage.trim() === '' ? '-' : shortMessage,
    timestamp: isFiniteNumber(message.timestamp) && message.timestamp > 0 ? message.timestamp : roundMs(nowMs),
    level: isSyslogLevel(message.level) ? message.level : DEFAULT_LEVEL,
  };
  if (typeof message.full_message === 'string') payload.full_message = message.full_message;

  for (const [name, value] of Object.entries(message)) {
    if (name === '_id' || !FIELD_NAME.test(name)) continue;
    if (typeof value === 'string' || isFiniteNumber(value)) payload[name] = value;
  }
  return payload;
}

/** The payload as UTF-8 JSON. JSON escapes control characters, so the text never holds a raw NUL. */
export function encodeGelf(message: GelfMessage, host: string, nowMs = Date.now()): Buffer {
  return Buffer.from(JSON.stringify(toGelfPayload(message, host, nowMs)), 'utf8');
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isSyslogLevel(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 7;
}

/** Epoch milliseconds as GELF's seconds with three decimals. */
function roundMs(ms: number): number {
  return Math.round(ms) / 1000;
}
