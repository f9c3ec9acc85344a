import { describe, expect, it } from 'vitest';
import { changedFields, hasChanges, sameValue } from './dirty';

describe('sameValue', () => {
  it.each([
    ['equal strings', 'a', 'a', true],
    ['different strings', 'a', 'b', false],
    ['number and empty field', 15, '', false],
    ['equal nested objects', { a: { b: [1, 2] } }, { a: { b: [1, 2] } }, true],
    ['different nested value', { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, false],
    ['extra key', { a: 1 }, { a: 1, b: 2 }, false],
    ['null and object', null, {}, false],
    ['array and object', [], {}, false],
  ])('%s', (_name, a, b, expected) => {
    expect(sameValue(a, b)).toBe(expected);
  });
});

describe('changedFields', () => {
  it('names only the fields that differ', () => {
    const saved = { DebugMode: false, GELFListenerURL: '' };
    expect(changedFields({ DebugMode: true, GELFListenerURL: '' }, saved)).toEqual(['DebugMode']);
  });

  it('sees no change once an edit is undone', () => {
    const saved = { KioskSessionDuration: 15 };
    expect(hasChanges({ KioskSessionDuration: 15 }, saved)).toBe(false);
    expect(hasChanges({ KioskSessionDuration: 16 }, saved)).toBe(true);
  });

  it('sees a picked file inside a nested value', () => {
    const saved: { File: { content: string | null; remove: boolean } } = { File: { content: null, remove: false } };
    expect(hasChanges({ File: { content: 'x', remove: false } }, saved)).toBe(true);
  });
});
