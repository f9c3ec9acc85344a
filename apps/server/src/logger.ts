import pino, { type Logger } from 'pino';
import type { PosternConfig } from './config/config.js';

/** The one logger. Secrets never reach it: cookies and credentials are redacted wherever they appear. */
export function createLogger(level: PosternConfig['logLevel']): Logger {
  return pino({
    level,
    base: { service: 'postern' },
    redact: {
      paths: ['req.headers.cookie', 'req.headers.authorization', '*.Password', '*.password', '*.token'],
      censor: '[redacted]',
    },
  });
}
