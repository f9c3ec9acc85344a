import type { z } from 'zod';
import type { IssueKey } from '@/lib/forms/zod-form-errors';

/** Test helper: each failing path's first message (through `issueKey` when given), as a form shows it. */
export function firstIssues(
  schema: z.ZodType,
  values: unknown,
  issueKey: IssueKey = () => undefined,
): Record<string, string> {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const found: Record<string, string> = {};
  for (const issue of result.error.issues) found[issue.path.join('.')] ??= issueKey(issue) ?? issue.message;
  return found;
}
