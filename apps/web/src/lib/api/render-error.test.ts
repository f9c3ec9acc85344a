import { describe, expect, it } from 'vitest';
import i18n from '../../i18n/i18n';
import { ApiError } from './api-error';
import { renderError } from './render-error';

const t = i18n.getFixedT('en');

describe('renderError', () => {
  it.each([
    ['Err only', new ApiError(401, 'err.invalidCredentials'), 'Invalid credentials'],
    ['Err and Extra', new ApiError(400, 'err.badRequest', 'UserName'), 'Bad request: UserName'],
    [
      'Extra that is a code',
      new ApiError(403, 'err.unauthorised', 'err.licenceRequired'),
      'Unauthorised: A valid licence is required',
    ],
    ['an unknown code', new ApiError(400, 'err.fromTheFuture'), 'err.fromTheFuture'],
    ['no Err: the message', new TypeError('Failed to fetch'), 'Failed to fetch'],
    ['an API answer without Err', new ApiError(502, undefined), 'An internal server error occurred'],
    ['nothing at all', undefined, 'An internal server error occurred'],
    ['an Error without a message', new Error(''), 'An internal server error occurred'],
  ])('renders %s', (_case, error, expected) => {
    expect(renderError(error, t)).toBe(expected);
  });

  it('renders in German', () => {
    const de = i18n.getFixedT('de');
    expect(renderError(new ApiError(429, 'err.tooManyRequests', '30s'), de)).toBe(
      'Zu viele Anfragen, bitte versuchen Sie es erneut in: 30s',
    );
    expect(renderError(null, de)).toBe('Ein interner Serverfehler ist aufgetreten');
  });
});
