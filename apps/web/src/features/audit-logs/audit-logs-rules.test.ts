import { describe, expect, it } from 'vitest';
import { auditCsv, auditCsvFileName, csvCell, toCsv } from './audit-csv';
import { toAuditRow } from './audit-entry';

describe('csvCell', () => {
  it.each([
    ['plain', '"plain"'],
    ['', '""'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=1+1', `"'=1+1"`],
    ['+49 30 1234', `"'+49 30 1234"`],
    ['-2', `"'-2"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\t=cmd', `"'\t=cmd"`],
    ['\r=cmd', `"'\r=cmd"`],
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['a=b', '"a=b"'],
    ['192.0.2.1', '"192.0.2.1"'],
  ])('writes %j as %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });
});

describe('toCsv', () => {
  it('joins cells with commas and lines with CRLF, ending with one', () => {
    expect(
      toCsv([
        ['a', 'b'],
        ['c', 'd'],
      ]),
    ).toBe('"a","b"\r\n"c","d"\r\n');
  });
});

describe('auditCsv', () => {
  it('writes a header and one line per entry, with empty cells for missing fields', () => {
    const rows = [
      toAuditRow({
        Date: '2026-11-24T09:00:00.000Z',
        Entry: { UserLogin: { UserName: 'ada', IpAddress: '192.0.2.1' } },
        Actor: 'ada',
      }),
      toAuditRow({
        Date: '2026-11-23T09:00:00.000Z',
        Entry: { GrantFailed: { UserName: '=evil()', ErrorMessage: 'x, "y"' } },
        Actor: '=evil()',
        Target: 'SSH',
      }),
    ];
    const csv = auditCsv(rows, (action) => `text of ${action}`);
    expect(csv.split('\r\n')).toEqual([
      '"Date","Action","ActionText","Actor","Target","UserName","AdminName","AgentName","IpAddress","AclDescription","Description","ErrorMessage"',
      '"2026-11-24T09:00:00.000Z","UserLogin","text of UserLogin","ada","","ada","","","192.0.2.1","","",""',
      `"2026-11-23T09:00:00.000Z","GrantFailed","text of GrantFailed","'=evil()","SSH","'=evil()","","","","","","x, ""y"""`,
      '',
    ]);
  });
});

describe('auditCsvFileName', () => {
  it.each([
    [new Date(2026, 10, 24, 23, 59), '2026-11-24-postern-audit.csv'],
    [new Date(2027, 0, 5, 0, 0), '2027-01-05-postern-audit.csv'],
  ])('names the file after the local day %s', (now, name) => {
    expect(auditCsvFileName(now)).toBe(name);
  });
});

describe('toAuditRow', () => {
  it.each([
    [{ Actor: 'root', Target: 'ada' }, 'root', 'ada'],
    [{ Actor: 'edge' }, 'edge', ''],
    [{ Target: 'ada' }, '', 'ada'],
    [{}, '', ''],
  ])('takes the actor and target the server names: %j', (parties, actor, target) => {
    const detail = { UserName: 'ada', AdminName: 'root' };
    const row = toAuditRow({ Date: '2026-11-24T09:00:00.000Z', Entry: { UserCreated: detail }, ...parties }, 3);
    expect(row).toEqual({ id: 3, date: '2026-11-24T09:00:00.000Z', action: 'UserCreated', detail, actor, target });
  });
});
