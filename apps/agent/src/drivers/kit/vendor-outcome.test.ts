import { describe, expect, it } from 'vitest';
import { classifyVendorAnswer, isDone, type VendorRules } from './vendor-outcome.js';

const rules: VendorRules = {
  alreadyPresent: ({ status, body }) => status === 500 && (body as { error?: number } | null)?.error === -5,
  alreadyAbsent: ({ status }) => status === 404,
  limitReached: ({ body }) => (body as { error?: number } | null)?.error === -999,
};

describe('classifyVendorAnswer', () => {
  it('maps answers to the six outcomes', () => {
    expect(classifyVendorAnswer('add', { status: 200, body: {} }, rules)).toBe('applied');
    expect(classifyVendorAnswer('add', { status: 500, body: { error: -5 } }, rules)).toBe('alreadyPresent');
    expect(classifyVendorAnswer('remove', { status: 500, body: { error: -5 } }, rules)).toBe('fatal');
    expect(classifyVendorAnswer('remove', { status: 404, body: {} }, rules)).toBe('alreadyAbsent');
    expect(classifyVendorAnswer('read', { status: 404, body: {} }, rules)).toBe('fatal');
    expect(classifyVendorAnswer('add', { status: 500, body: { error: -999 } }, rules)).toBe('limitReached');
    for (const status of [408, 429, 502, 503, 504]) {
      expect(classifyVendorAnswer('add', { status, body: null }, rules)).toBe('retryable');
    }
    expect(classifyVendorAnswer('add', { status: 401, body: null }, rules)).toBe('fatal');
    expect(
      classifyVendorAnswer(
        'add',
        { status: 200, body: 'error' },
        { failedDespiteSuccess: ({ body }) => body === 'error' },
      ),
    ).toBe('fatal');
  });

  it('counts applied, already present and already absent as done', () => {
    expect(
      ['applied', 'alreadyPresent', 'alreadyAbsent', 'retryable', 'limitReached', 'fatal'].map((o) =>
        isDone(o as never),
      ),
    ).toEqual([true, true, true, false, false, false]);
  });
});
