import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { zodFormErrors } from './zod-form-errors';

const upper = (key: string) => key.toUpperCase();

const SCHEMA = z.object({
  Name: z.string().min(1, 'name.required').max(5, 'name.long'),
  Config: z.object({ Url: z.url('url.bad') }),
});

describe('zodFormErrors', () => {
  it('is empty for valid values', () => {
    expect(zodFormErrors(SCHEMA, { Name: 'a', Config: { Url: 'https://x.example' } }, upper)).toEqual({});
  });

  it('gives each field its translated message, nested fields under a dotted path', () => {
    expect(zodFormErrors(SCHEMA, { Name: '', Config: { Url: 'nope' } }, upper)).toEqual({
      Name: 'NAME.REQUIRED',
      'Config.Url': 'URL.BAD',
    });
  });

  it('keeps only the first issue of a field', () => {
    const twice = z.object({ Name: z.string().min(3, 'first').regex(/^\d+$/, 'second') });
    expect(zodFormErrors(twice, { Name: 'a' }, upper)).toEqual({ Name: 'FIRST' });
  });

  it('lets issueKey choose the key for some issues', () => {
    const errors = zodFormErrors(SCHEMA, { Name: 'toolong', Config: { Url: 'nope' } }, upper, (issue) =>
      issue.code === 'too_big' ? 'custom.long' : undefined,
    );
    expect(errors).toEqual({ Name: 'CUSTOM.LONG', 'Config.Url': 'URL.BAD' });
  });

  it('leaves out issues about the whole object', () => {
    const whole = z.object({ A: z.string() }).refine(() => false, 'whole');
    expect(zodFormErrors(whole, { A: 'x' }, upper)).toEqual({});
  });
});
