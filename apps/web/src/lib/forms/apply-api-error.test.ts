import { describe, expect, it, vi } from 'vitest';
import i18n from '@/i18n/i18n';
import { ApiError } from '@/lib/api/api-error';
import { applyApiError, fieldOfApiError, valuePaths } from './apply-api-error';

const t = i18n.getFixedT('en');
const FIELDS = ['UserName', 'DiscoverIPURL', 'Config', 'Config.fortios', 'Config.fortios.Url'];

describe('valuePaths', () => {
  it('lists every branch and leaf as a dotted path', () => {
    expect(valuePaths({ Name: '', Config: { fortios: { Url: '' } } })).toEqual([
      'Name',
      'Config',
      'Config.fortios',
      'Config.fortios.Url',
    ]);
  });
});

describe('fieldOfApiError', () => {
  it.each([
    [
      new ApiError(400, 'err.urlMustBeHttp', 'DiscoverIPURL'),
      { field: 'DiscoverIPURL', message: 'URL must be http or https' },
    ],
    [
      new ApiError(400, 'err.badRequest', 'UserName: too long'),
      { field: 'UserName', message: 'Bad request: too long' },
    ],
    [
      new ApiError(400, 'err.urlMustBeHttp', 'Config.fortios.Url'),
      { field: 'Config.fortios.Url', message: 'URL must be http or https' },
    ],
    [new ApiError(400, 'err.badRequest', 'Other: too long'), null],
    [new ApiError(400, 'err.badRequest', 'something went wrong'), null],
    [new ApiError(400, 'err.badRequest'), null],
    [new ApiError(502, undefined), null],
    [new Error('network'), null],
  ])('places %s', (error, expected) => {
    expect(fieldOfApiError(error, FIELDS, t)).toEqual(expected);
  });
});

describe('applyApiError', () => {
  it('sets the error on the named field and says so', () => {
    const setFieldError = vi.fn();
    const form = { getValues: () => ({ DiscoverIPURL: 'ftp://x' }), setFieldError };
    expect(applyApiError(form, new ApiError(400, 'err.urlMustBeHttp', 'DiscoverIPURL'), t)).toBe(true);
    expect(setFieldError).toHaveBeenCalledWith('DiscoverIPURL', 'URL must be http or https');
  });

  it('leaves the form alone when no field is named', () => {
    const setFieldError = vi.fn();
    const form = { getValues: () => ({ DiscoverIPURL: '' }), setFieldError };
    expect(applyApiError(form, new ApiError(500, 'err.internalServerError'), t)).toBe(false);
    expect(setFieldError).not.toHaveBeenCalled();
  });
});
