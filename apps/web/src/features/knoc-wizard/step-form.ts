import { createContext, useContext, useEffect } from 'react';
import type { z } from 'zod';
import { useZodForm, type ZodForm } from '@/lib/forms/use-zod-form';
import type { IssueKey } from '@/lib/forms/zod-form-errors';

/** What the stepper needs of the form on a step: validate it, showing its errors. */
export interface StepForm {
  /** Validates every field and shows the errors; true when there are none. */
  validate: () => boolean;
}

/** The stepper's registration of the form of the step on screen (null: the step has none). */
export const StepFormContext = createContext<(form: StepForm | null) => void>(() => undefined);

/**
 * Makes `form` the form the stepper validates when Next is pressed. Registered after every render,
 * because Mantine hands out a new form object each time.
 */
export function useStepForm(form: { validate: () => { hasErrors: boolean } }): void {
  const register = useContext(StepFormContext);
  useEffect(() => {
    register({ validate: () => !form.validate().hasErrors });
    return () => register(null);
  });
}

/**
 * A section's form inside a wizard step: a zod-validated form started from the wizard's state,
 * whose every change goes back into that state (so Back and Next keep what was typed), and which
 * the stepper validates on Next.
 */
export function useStepSectionForm<Values extends object>(
  schema: z.ZodType,
  values: Values,
  onChange: (values: Values) => void,
  issueKey?: IssueKey,
): ZodForm<Values> {
  const form = useZodForm<Values>({ schema, issueKey, initialValues: values, onValuesChange: onChange });
  useStepForm(form);
  return form;
}
