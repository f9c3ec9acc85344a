import { GrantStatus } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import type { KnocResult } from './grants.js';
import { knocLines, localTime, notGrantedProblem, printResult, whenText } from './output.js';
import { eventJson, eventText } from './persist-output.js';

const GRANTED: KnocResult = {
  id: 'k1',
  name: 'Backup DB',
  status: GrantStatus.Granted,
  phase: 'granted',
  expiresAt: '2030-01-01T20:00:00.000Z',
  error: '',
  ok: true,
};
const FAILED: KnocResult = {
  id: 'k2',
  name: 'Wiki',
  status: GrantStatus.AgentOffline,
  phase: 'failed',
  expiresAt: null,
  error: "the knoc's agent is offline",
  ok: false,
};

describe('text output', () => {
  it('writes times in local time with the offset, then in ISO', () => {
    expect(localTime(Date.UTC(2030, 0, 1, 20))).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d$/);
    expect(whenText('2030-01-01T20:00:00.000Z')).toMatch(/ \(2030-01-01T20:00:00\.000Z\)$/);
  });

  it('lines the knocs up, with the expiry of granted ones and the reason for the others', () => {
    const [granted, failed] = knocLines([GRANTED, FAILED]);

    expect(granted).toMatch(/^ {2}Backup DB {2}granted until .* \(2030-01-01T20:00:00\.000Z\)$/);
    expect(failed).toBe("  Wiki       NOT GRANTED: the knoc's agent is offline");
  });

  it('names every knoc not granted in the one stderr line', () => {
    expect(notGrantedProblem([GRANTED, FAILED])).toBe(`1 of 2 knocs not granted: "Wiki": the knoc's agent is offline`);
  });

  it('prints the JSON document or the lines on stdout, warnings and the problem on stderr', () => {
    const out: string[] = [];
    const err: string[] = [];
    const output = { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text) };
    const result = { exitCode: 7, document: { ok: false }, lines: ['a', 'b'], problem: 'bad', warnings: ['hm'] };

    printResult(output, result, false);
    printResult(output, result, true);

    expect(out).toEqual(['a\nb\n', '{\n  "ok": false\n}\n']);
    expect(err).toEqual([
      'postern-client: warning: hm\n',
      'postern-client: bad\n',
      'postern-client: warning: hm\n',
      'postern-client: bad\n',
    ]);
  });
});

describe('persist events', () => {
  const now = Date.UTC(2030, 0, 1, 12);

  it('are one JSON line each, Time and Event first, fields in PascalCase', () => {
    const line = eventJson({ event: 'knoc', knoc: GRANTED }, now);

    expect(line).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      Time: '2030-01-01T12:00:00.000Z',
      Event: 'knoc',
      Knoc: {
        ID: 'k1',
        Name: 'Backup DB',
        Granted: true,
        Status: 'Granted',
        StatusCode: 0,
        ExpiresAt: '2030-01-01T20:00:00.000Z',
        Error: '',
      },
    });
    expect(Object.keys(JSON.parse(eventJson({ event: 'recovered', from: 'unreachable' }, now)) as object)).toEqual([
      'Time',
      'Event',
      'From',
    ]);
  });

  it.each([
    [{ event: 'knoc', knoc: FAILED } as const, /"Wiki" not granted: the knoc's agent is offline$/],
    [
      { event: 'unreachable', message: 'could not reach x', retryInSeconds: 2 } as const,
      /could not reach x; trying again in 2 s/,
    ],
    [{ event: 'recovered', from: 'unreachable' } as const, /the server is reachable again$/],
    [
      { event: 'address', address: '203.0.113.5', previous: '198.51.100.7' } as const,
      /from 198\.51\.100\.7 to 203\.0\.113\.5/,
    ],
    [{ event: 'stopped', loggedOut: true } as const, /logged out; every grant of the session is revoked$/],
  ])('read as one line of text: %j', (event, text) => {
    const line = eventText(event, now);

    expect(line).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d /);
    expect(line).toMatch(text);
  });
});
