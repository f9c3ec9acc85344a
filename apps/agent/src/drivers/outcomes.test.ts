import { describe, expect, it } from 'vitest';
import { CallBudgetSpentError } from './http/call-budget.js';
import { HttpError } from './http/http-client.js';
import { HttpStatusError } from './http/http-status-error.js';
import {
  ConfigurationError,
  failed,
  failureFrom,
  failureFromAnswer,
  isPermanentFailure,
  PermanentDriverError,
} from './outcomes.js';

describe('permanent and transient failures', () => {
  it.each([
    ['a configuration error (a field missing)', new ConfigurationError('fortios: the backend has no Url'), true],
    ['a permanent driver error', new PermanentDriverError('cannot open the secret'), true],
    ['HTTP 401 after the client’s own re-login', new HttpStatusError('refused the token (HTTP 401)', 401), true],
    ['HTTP 403', new HttpStatusError('may not (HTTP 403)', 403), true],
    ['HTTP 400 validation', new HttpStatusError('invalid (HTTP 400)', 400), true],
    ['HTTP 404', new HttpStatusError('no such group (HTTP 404)', 404), true],
    ['HTTP 422 validation', new HttpStatusError('invalid (HTTP 422)', 422), true],
    ['one wrapped as the cause of another', new Error('could not add', { cause: new HttpStatusError('x', 403) }), true],
    ['an unusable URL', new HttpError('fortios: not a URL', 'url', false), true],
    ['HTTP 500', new HttpStatusError('HTTP 500', 500), false],
    ['HTTP 503', new HttpStatusError('HTTP 503', 503), false],
    ['HTTP 429', new HttpStatusError('HTTP 429', 429), false],
    ['a timeout', new HttpError('no answer within 5000 ms', 'timeout', true), false],
    ['a dropped connection', new HttpError('socket hang up', 'network', true), false],
    ['a spent call budget', new CallBudgetSpentError('no answer within 10 s (call budget spent)'), false],
    ['a plain Error (unknown)', new Error('something odd'), false],
    ['a thrown string', 'odd', false],
  ])('%s → permanent: %s', (_name, error, permanent) => {
    expect(isPermanentFailure(error)).toBe(permanent);
    expect(failureFrom('192.0.2.1', error).permanent === true).toBe(permanent);
  });

  it('builds outcomes that say so only when permanent', () => {
    expect(failed('192.0.2.1', 'HTTP 500')).toEqual({ ip: '192.0.2.1', ok: false, error: 'HTTP 500' });
    expect(failed('192.0.2.1', 'HTTP 403', { permanent: true })).toEqual({
      ip: '192.0.2.1',
      ok: false,
      error: 'HTTP 403',
      permanent: true,
    });
    expect(failureFromAnswer('192.0.2.1', { status: 422, error: 'bad' }).permanent).toBe(true);
    expect(failureFromAnswer('192.0.2.1', { status: 502, error: 'bad gateway' }).permanent).toBeUndefined();
    expect(failureFrom('192.0.2.1', new HttpStatusError('fortios: HTTP 401', 401))).toEqual({
      ip: '192.0.2.1',
      ok: false,
      error: 'fortios: HTTP 401',
      permanent: true,
    });
  });
});
