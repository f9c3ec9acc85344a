import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from './config/settings.js';
import { REDACTED } from './config/secret.js';

/**
 * The agent's one logger: JSON lines on stdout (journald or the container runtime collects them).
 * Tokens and credentials are redacted wherever a later change might log them; the configuration's own
 * token is a {@link Secret} and never serialises to its value in the first place.
 */
export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: 'postern-agent' },
    redact: {
      paths: ['token', '*.token', 'authorization', '*.authorization', '*.headers.authorization'],
      // A token key keeps saying that a token is set, like check-config does; anything else is hidden.
      censor: (_value, path) => (path.at(-1) === 'token' ? REDACTED : '[redacted]'),
    },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}
