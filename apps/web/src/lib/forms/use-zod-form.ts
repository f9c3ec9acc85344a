import { useForm, type UseFormInput, type UseFormReturnType } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import type { z } from 'zod';
import { applyApiError } from './apply-api-error';
import { zodFormErrors, type IssueKey } from './zod-form-errors';

/** Options of {@link useZodForm}: Mantine's form options, with a zod schema instead of `validate`. */
export interface UseZodFormOptions<Values extends object> extends Omit<
  UseFormInput<Values>,
  'validate' | 'initialValues'
> {
  /** The rules, usually a protocol request schema or a `pick` of one, so form and server agree. */
  schema: z.ZodType;
  initialValues: Values;
  /** Overrides the text key for particular issues (say, "required" for an empty field). */
  issueKey?: IssueKey;
}

/** A Mantine form that also knows how to show a server refusal on the field it names. */
export type ZodForm<Values extends object> = UseFormReturnType<Values> & {
  /** Puts an API error's `{Err, Extra}` under the field Extra names; false when it names none. */
  setApiError: (error: unknown) => boolean;
};

/**
 * Mantine's `useForm` validated by a zod schema: each field shows its first issue, with the issue's
 * message (an i18n key such as `err.passwordLength`) translated in the current language.
 */
export function useZodForm<Values extends object>({
  schema,
  issueKey,
  ...options
}: UseZodFormOptions<Values>): ZodForm<Values> {
  const { t } = useTranslation();
  const form = useForm<Values>({
    mode: 'controlled',
    ...options,
    validate: (values) => zodFormErrors(schema, values, (key) => t(key, { defaultValue: key }), issueKey),
  });
  return Object.assign(form, { setApiError: (error: unknown) => applyApiError(form, error, t) });
}
