import { describe, expect, it } from 'vitest';
import { UNREADABLE_SECRET_REPORT_INTERVAL_MS, UnreadableSecretReports } from './unreadable-secrets.js';

const T0 = Date.UTC(2026, 10, 22, 9, 0, 0);
const place = (rowId: string) => ({ table: 'users', column: 'totp_secret', rowId });

describe('reports of unreadable secrets', () => {
  it('reports a place once an hour however often it is met', () => {
    const reports = new UnreadableSecretReports();
    expect(reports.due(place('u1'), T0)).toBe(true);
    expect(reports.due(place('u1'), T0 + 1)).toBe(false);
    expect(reports.due(place('u1'), T0 + UNREADABLE_SECRET_REPORT_INTERVAL_MS - 1)).toBe(false);
    expect(reports.due(place('u1'), T0 + UNREADABLE_SECRET_REPORT_INTERVAL_MS)).toBe(true);
  });

  it('reports each row, column and table of its own', () => {
    const reports = new UnreadableSecretReports();
    expect(reports.due(place('u1'), T0)).toBe(true);
    expect(reports.due(place('u2'), T0)).toBe(true);
    expect(reports.due({ ...place('u1'), column: 'totp_pending_secret' }, T0)).toBe(true);
    expect(reports.due({ ...place('u1'), table: 'admins' }, T0)).toBe(true);
  });

  it('stays bounded: after very many places the oldest may be reported again, the newest not', () => {
    const reports = new UnreadableSecretReports();
    for (let row = 0; row < 10_000; row += 1) reports.due(place(`r${row}`), T0);
    expect(reports.due(place('one more'), T0)).toBe(true);
    expect(reports.due(place('r0'), T0)).toBe(true);
    expect(reports.due(place('r9999'), T0)).toBe(false);
  });
});
