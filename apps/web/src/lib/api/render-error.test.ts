import { describe, expect, it } from 'vitest';
import i18n from '../../i18n/i18n';
import { ApiError } from './api-error';
import { renderError, waitInWords } from './render-error';

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
    expect(renderError(new ApiError(400, 'err.badRequest', 'UserName'), de)).toBe('Ungültige Anfrage: UserName');
    expect(renderError(null, de)).toBe('Ein interner Serverfehler ist aufgetreten');
  });
});

describe('renderError for the rate limit (429)', () => {
  it.each([
    ['840s', 'Too many requests, please try again in 14 minutes'],
    ['40s', 'Too many requests, please try again in 40 seconds'],
    ['1s', 'Too many requests, please try again in 1 second'],
    ['61s', 'Too many requests, please try again in 2 minutes'],
    ['7200s', 'Too many requests, please try again in 2 hours'],
    ['259200s', 'Too many requests, please try again in 3 days'],
  ])('says the wait of %s in words', (extra, expected) => {
    expect(renderError(new ApiError(429, 'err.tooManyRequests', extra), t)).toBe(expected);
  });

  it.each([
    ['840s', 'Zu viele Anfragen, bitte versuchen Sie es in 14 Minuten erneut'],
    ['40s', 'Zu viele Anfragen, bitte versuchen Sie es in 40 Sekunden erneut'],
    ['3600s', 'Zu viele Anfragen, bitte versuchen Sie es in 60 Minuten erneut'],
  ])('says the wait of %s in German words', (extra, expected) => {
    expect(renderError(new ApiError(429, 'err.tooManyRequests', extra), i18n.getFixedT('de'))).toBe(expected);
  });

  it('falls back to the Retry-After seconds when Extra carries no wait', () => {
    expect(renderError(new ApiError(429, 'err.tooManyRequests', undefined, 90), t)).toBe(
      'Too many requests, please try again in 2 minutes',
    );
  });

  it('keeps the generic rule when the wait cannot be read', () => {
    expect(renderError(new ApiError(429, 'err.tooManyRequests', 'soon'), t)).toBe(
      'Too many requests, please try again in: soon',
    );
    expect(renderError(new ApiError(429, 'err.tooManyRequests'), t)).toBe('Too many requests, please try again in');
  });
});

describe('waitInWords', () => {
  it.each([
    [0, { value: 1, unit: 'second' }],
    [59, { value: 59, unit: 'second' }],
    [60, { value: 1, unit: 'minute' }],
    [89 * 60 + 1, { value: 90, unit: 'minute' }],
    [90 * 60, { value: 2, unit: 'hour' }],
    [48 * 3600, { value: 2, unit: 'day' }],
  ])('rounds %i seconds up to %o', (seconds, expected) => {
    expect(waitInWords(seconds)).toEqual(expected);
  });
});
