import { z } from 'zod';

/** What a `{ <type>: fields }` object parses to, so code never has to find the type key again. */
export interface TypedFields<T extends string> {
  type: T;
  fields: Record<string, unknown>;
}

/**
 * A `{ <type>: { …fields } }` object (backend and knoc configs): exactly one key naming a type, besides
 * the keys in `ignoredKeys`, whose value passes that type's schema. A wrong shape is one issue with
 * `shapeError`; a field's issue keeps its path under the type key, so a form can show it on the field.
 * `typeErrors` gives a type its own code for issues that carry none (a missing or mistyped field,
 * zod's generic message), as the spec's 'The provided Fortinet config was invalid'; an issue with
 * an `err.` code of its own (e.g. 'URL must be http or https') keeps it.
 */
export function oneOfTypes<T extends string>(
  typeSchema: z.ZodType<T>,
  schemaOf: (type: T) => z.ZodType,
  shapeError: string,
  ignoredKeys: readonly string[] = [],
  typeErrors: Partial<Record<T, string>> = {},
) {
  return z.record(z.string(), z.unknown()).transform((config, ctx): TypedFields<T> => {
    const keys = Object.keys(config).filter((key) => !ignoredKeys.includes(key));
    const type = keys.length === 1 ? typeSchema.safeParse(keys[0]) : undefined;
    if (type === undefined || !type.success) {
      ctx.addIssue({ code: 'custom', message: shapeError });
      return z.NEVER;
    }
    const parsed = schemaOf(type.data).safeParse(config[type.data] ?? {});
    if (!parsed.success) {
      const typeError = typeErrors[type.data];
      for (const issue of parsed.error.issues) {
        const message = typeError !== undefined && !issue.message.startsWith('err.') ? typeError : issue.message;
        ctx.addIssue({ code: 'custom', path: [type.data, ...issue.path], message });
      }
      return z.NEVER;
    }
    return { type: type.data, fields: parsed.data as Record<string, unknown> };
  });
}
