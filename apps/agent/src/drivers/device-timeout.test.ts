import { DEVICE_TIMEOUT_MAX_SECONDS, DEVICE_TIMEOUT_MIN_SECONDS } from '@postern/protocol';
import { describe, expect, it } from 'vitest';
import { clampDeviceTimeout } from './device-timeout.js';

describe('clampDeviceTimeout', () => {
  it.each([
    ['never 0, which ipset reads as forever', 0, DEVICE_TIMEOUT_MIN_SECONDS],
    ['never negative', -30, DEVICE_TIMEOUT_MIN_SECONDS],
    ['a fraction below one second up to one', 0.4, DEVICE_TIMEOUT_MIN_SECONDS],
    ['whole seconds as they are', 3600, 3600],
    ['fractions down, so the device never outlives the grant', 59.9, 59],
    ['the kernel maximum as it is', DEVICE_TIMEOUT_MAX_SECONDS, DEVICE_TIMEOUT_MAX_SECONDS],
    ['beyond the kernel maximum down to it', DEVICE_TIMEOUT_MAX_SECONDS + 1, DEVICE_TIMEOUT_MAX_SECONDS],
    ['infinity down to the maximum', Number.POSITIVE_INFINITY, DEVICE_TIMEOUT_MAX_SECONDS],
    ['not a number up to the minimum', Number.NaN, DEVICE_TIMEOUT_MIN_SECONDS],
  ])('clamps %s', (_name, ttl, expected) => {
    expect(clampDeviceTimeout(ttl)).toBe(expected);
  });
});
