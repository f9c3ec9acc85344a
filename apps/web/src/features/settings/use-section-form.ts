import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { FormErrors } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import type { z } from 'zod';
import { useZodForm, type ZodForm } from '@/lib/forms/use-zod-form';
import type { IssueKey } from '@/lib/forms/zod-form-errors';
import { hasChanges } from './dirty';

/** Options of {@link useSectionForm}. */
export interface UseSectionFormOptions<V extends object> {
  /** The section's rules, usually picked from the protocol's request schema. */
  schema: z.ZodType;
  issueKey?: IssueKey;
  /** The values as the server last said: what Cancel restores and what "changed" is measured against. */
  saved: V;
  /** Sends the values and resolves to the values as saved, which the form then shows. */
  save: (values: V) => Promise<V>;
  /** The notification after a successful save, already translated. */
  successMessage: string;
  /** Called when validation refuses a submit, e.g. to show the tab holding the first error. */
  onInvalid?: (errors: FormErrors) => void;
}

/** One settings section's form and what its frame needs: dirty state, pending save, failure. */
export interface SectionFormState<V extends object> {
  form: ZodForm<V>;
  /** The form differs from the saved values: Save and Cancel are enabled (spec §2 Settings). */
  dirty: boolean;
  /** A save is on its way: Save spins, Cancel and a second submit wait. */
  pending: boolean;
  /** A refusal that names no field of this form, for the "Error" dialog; null when none. */
  failure: unknown;
  clearFailure: () => void;
  cancel: () => void;
  onSubmit: (event?: FormEvent<HTMLFormElement>) => void;
}

/**
 * A settings section's form: validated with zod, Save and Cancel only when changed, Cancel restores
 * the saved values, one save at a time, a green notification on success, and a refusal shown on the
 * field it names or else in the "Error" dialog.
 */
export function useSectionForm<V extends object>(options: UseSectionFormOptions<V>): SectionFormState<V> {
  const { schema, issueKey, saved, save, successMessage, onInvalid } = options;
  const form = useZodForm<V>({ schema, issueKey, initialValues: saved });
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  // A ref, not state: two quick clicks arrive before React re-renders with `pending`.
  const inFlight = useRef(false);
  const lastSaved = useRef(saved);
  const savedKey = JSON.stringify(saved);

  useEffect(() => {
    // A change from elsewhere (another section's save, another admin) replaces the form's values
    // only when the form holds no edits of its own: unsaved work is never overwritten.
    if (!hasChanges(form.getValues(), lastSaved.current)) form.setValues(saved);
    lastSaved.current = saved;
    // savedKey stands for `saved`, which is a new object on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [savedKey]);

  const submit = async (values: V) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setPending(true);
    try {
      const next = await save(values);
      lastSaved.current = next;
      form.setValues(next);
      form.clearErrors();
      notifications.show({ color: 'green', message: successMessage });
    } catch (error) {
      if (!form.setApiError(error)) setFailure(error);
    } finally {
      inFlight.current = false;
      setPending(false);
    }
  };

  return {
    form,
    dirty: hasChanges(form.values, saved),
    pending,
    failure,
    clearFailure: () => setFailure(null),
    cancel: () => {
      form.setValues(saved);
      form.clearErrors();
    },
    // Built per event: the handler reads refs, which only event handlers may do.
    onSubmit: (event) => form.onSubmit(submit, (errors) => onInvalid?.(errors))(event),
  };
}
