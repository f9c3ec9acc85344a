import { z } from 'zod';
import { ErrorCodes } from '@postern/protocol';

/** One script variable as the form holds it. */
export interface EnvVarRow {
  Name: string;
  Value: string;
  Sensitive: boolean;
  /** Read back on update: a value is stored (encrypted), so an empty Value keeps it. */
  Encrypted: boolean;
}

/** The Variables form. */
export interface EnvVarsValues {
  EnvVars: EnvVarRow[];
}

export const emptyEnvVar = (): EnvVarRow => ({ Name: '', Value: '', Sensitive: false, Encrypted: false });

/**
 * The spec's variable rules (§5): a name needs a value and a value a name (a stored encrypted value
 * counts), no '=' in a name, names unique. A row left wholly empty is no variable and passes.
 */
export const envVarsSchema = z.object({
  EnvVars: z
    .array(z.object({ Name: z.string(), Value: z.string(), Sensitive: z.boolean(), Encrypted: z.boolean() }))
    .superRefine((rows, ctx) => {
      const seen = new Set<string>();
      rows.forEach((row, index) => {
        const name = row.Name.trim();
        if (name === '' && row.Value !== '') {
          ctx.addIssue({ code: 'custom', path: [index, 'Name'], message: ErrorCodes.emptyEnvVarName });
        }
        if (name.includes('=')) {
          ctx.addIssue({ code: 'custom', path: [index, 'Name'], message: ErrorCodes.invalidEnvVarName });
        }
        if (name !== '' && row.Value === '' && !row.Encrypted) {
          ctx.addIssue({ code: 'custom', path: [index, 'Value'], message: ErrorCodes.envVarValueRequired });
        }
        if (name !== '' && seen.has(name)) {
          ctx.addIssue({ code: 'custom', path: [index, 'Name'], message: ErrorCodes.repeatedEnvVarNames });
        }
        seen.add(name);
      });
    }),
});

/** The variables worth sending: rows with a name (the script wizard drops the empty-named ones). */
export function namedEnvVars(rows: readonly EnvVarRow[]): EnvVarRow[] {
  return rows.filter((row) => row.Name.trim() !== '').map((row) => ({ ...row, Name: row.Name.trim() }));
}
