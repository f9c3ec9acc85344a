import type { AuditDetail } from '@postern/protocol';

/** Who made a change, for the audit entry: the second parameter of every service function that records one. */
export type AuditActor = Pick<AuditDetail, 'AdminName' | 'UserName'>;
