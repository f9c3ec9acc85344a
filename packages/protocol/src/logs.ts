import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { AuditEntry } from './audit.js';

/** Audit entries older than this many days can be cleared. */
export const AUDIT_LOG_CLEAR_AFTER_DAYS = 30;

/** GET /api/admin/logs: every entry, newest first; the console pages them. */
export const LogListResponse = dataEnvelope(z.array(AuditEntry));

/** DELETE /api/admin/logs: entries older than 30 days removed. */
export const LogClearResponse = dataEnvelope(z.object({ Deleted: z.number().int() }));
