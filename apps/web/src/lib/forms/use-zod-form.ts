import { useState } from 'react';
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
  /** A save's refusal that no field took (a lost connection, a 500), for the dialog; null for none. */
  failure: unknown;
  /** A save's `onError`: the refusal goes under the field it names, else into `failure`. */
  refuse: (error: unknown) => void;
  /** Forgets `failure` (before the next save, or when its dialog closes). */
  clearFailure: () => void;
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
  const [failure, setFailure] = useState<unknown>(null);
  const setApiError = (error: unknown) => applyApiError(form, error, t);
  return Object.assign(form, {
    setApiError,
    failure,
    refuse: (error: unknown) => {
      if (!setApiError(error)) setFailure(error);
    },
    clearFailure: () => setFailure(null),
  });
}
