import { ErrorCodes, V1_LOGIN_PATH } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError, TransportError } from './api-client.js';
import { ClientError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { isSessionEnded, isTransient, toClientError } from './failure-mapping.js';

const LOGIN = `POST ${V1_LOGIN_PATH}`;

describe('mapping failures to exit codes', () => {
  it.each([
    [401, ErrorCodes.unauthorised, ExitCode.KeyRefused],
    [403, ErrorCodes.apiKeySignInNotAllowed, ExitCode.KeyRefused],
    [401, ErrorCodes.apiKeyExpired, ExitCode.KeyExpired],
    [403, ErrorCodes.apiKeyAddressNotAllowed, ExitCode.AddressNotAllowed],
    [403, ErrorCodes.accountDisabled, ExitCode.AccountDisabled],
    [429, ErrorCodes.tooManyRequests, ExitCode.Throttled],
    [503, ErrorCodes.storeUnavailable, ExitCode.Unreachable],
    [500, ErrorCodes.internalServerError, ExitCode.Unreachable],
    [403, ErrorCodes.licenceRequired, ExitCode.Licence],
    [401, ErrorCodes.invalidSession, ExitCode.NoSession],
    [404, ErrorCodes.notFound, ExitCode.Usage],
    [400, ErrorCodes.badRequest, ExitCode.Internal],
  ])('%i %s on the sign-in is exit %i', (status, code, exitCode) => {
    const failure = toClientError(new ApiError(LOGIN, status, code, undefined, null));

    expect(failure).toMatchObject({ exitCode, code });
    expect(failure.message).not.toMatch(/\n/);
  });

  it('names the wait a throttled sign-in was asked for', () => {
    const failure = toClientError(new ApiError(LOGIN, 429, ErrorCodes.tooManyRequests, undefined, 42));

    expect(failure.message).toBe('too many sign-ins; the server asks to wait 42 s (Retry-After)');
  });

  it('counts a 5xx without an error body (a proxy page) as the server failing', () => {
    expect(toClientError(new ApiError('GET /api/status', 502, null, undefined, null)).exitCode).toBe(
      ExitCode.Unreachable,
    );
  });

  it('passes the Extra along', () => {
    const failure = toClientError(new ApiError(LOGIN, 403, ErrorCodes.apiKeyAddressNotAllowed, '203.0.113.9', null));

    expect(failure.message).toContain('(203.0.113.9)');
  });

  it.each([
    ['unreachable', ExitCode.Unreachable],
    ['unexpected', ExitCode.Unreachable],
    ['redirect', ExitCode.Usage],
  ] as const)('a transport problem "%s" is exit %i', (problem, exitCode) => {
    expect(toClientError(new TransportError(problem, 'x')).exitCode).toBe(exitCode);
  });

  it('keeps a ClientError as it is and makes anything else an internal error', () => {
    const own = new ClientError('no knoc "x"', ExitCode.KnocUnknown);

    expect(toClientError(own)).toBe(own);
    expect(toClientError(new TypeError('x is undefined'))).toMatchObject({
      exitCode: ExitCode.Internal,
      message: 'internal error: x is undefined',
    });
  });

  it('tells session ends and transient failures apart for the persist loop', () => {
    expect(isSessionEnded(new ApiError('GET /api/status', 401, ErrorCodes.invalidSession, undefined, null))).toBe(true);
    expect(isSessionEnded(new ApiError(LOGIN, 401, ErrorCodes.unauthorised, undefined, null))).toBe(false);
    expect(isTransient(new TransportError('unreachable', 'x'))).toBe(true);
    expect(isTransient(new TransportError('redirect', 'x'))).toBe(false);
    expect(isTransient(new ApiError(LOGIN, 503, ErrorCodes.storeUnavailable, undefined, null))).toBe(true);
    expect(isTransient(new ApiError(LOGIN, 429, ErrorCodes.tooManyRequests, undefined, 5))).toBe(true);
    expect(isTransient(new ApiError(LOGIN, 401, ErrorCodes.unauthorised, undefined, null))).toBe(false);
  });
});
