import { z } from 'zod';
import { dataEnvelope } from './envelope.js';
import { ALL_AUDIT_ACTIONS, AuditEntry, type AuditAction } from './audit.js';
import { IsoDateTime } from './common.js';

/** Audit entries older than this many days can be cleared. */
export const AUDIT_LOG_CLEAR_AFTER_DAYS = 30;

/** Longest actor or target text the log's filter accepts: longer than any name the store keeps. */
export const AUDIT_FILTER_TEXT_MAX = 200;

const FilterText = z.string().trim().min(1).max(AUDIT_FILTER_TEXT_MAX);

/**
 * GET /api/admin/logs's filters, all optional and combined with AND: one action by its name; the
 * actor's or the target's name containing a text (ignoring case); entries from `from` (inclusive) to
 * `to` (exclusive), ISO 8601 instants with their offset. The download exports the same selection.
 */
export const LogListQuery = z
  .object({
    action: z.enum(ALL_AUDIT_ACTIONS as [AuditAction, ...AuditAction[]]).optional(),
    actor: FilterText.optional(),
    target: FilterText.optional(),
    from: IsoDateTime.optional(),
    to: IsoDateTime.optional(),
  })
  .refine(
    (query) => query.from === undefined || query.to === undefined || Date.parse(query.from) < Date.parse(query.to),
    {
      path: ['to'],
      message: 'must be after from',
    },
  );
export type LogListQuery = z.infer<typeof LogListQuery>;

/** GET /api/admin/logs: the entries the filters select (every one without filters), newest first. */
export const LogListResponse = dataEnvelope(z.array(AuditEntry));

/** DELETE /api/admin/logs: entries older than 30 days removed. */
export const LogClearResponse = dataEnvelope(z.object({ Deleted: z.number().int() }));
