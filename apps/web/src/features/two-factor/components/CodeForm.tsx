import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Button, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useTranslation } from 'react-i18next';
import { ErrorCodes } from '@postern/protocol';
import { FormError } from '../../../components/FormError';
import { hasErrorCode } from '../../../lib/api/api-error';
import { renderError } from '../../../lib/api/render-error';

/** Six digits; spaces are allowed while typing ("123 456", as some apps show it) and removed. */
const CODE = /^\d{6}$/;

/** Refusals of the code itself, shown on the field: a wrong code, and a right one already used. */
const CODE_REFUSALS = [ErrorCodes.invalidCode, ErrorCodes.totpCodeUsed] as const;

/** The code as sent: without the spaces a person may have typed. */
function normaliseCode(value: string): string {
  return value.replace(/\s+/g, '');
}

/** Props of {@link CodeForm}. */
export interface CodeFormProps {
  /** A verification is on its way. */
  pending: boolean;
  /** The last failure; a refused code is shown on the field, anything else above the form. */
  error: unknown;
  onSubmit: (code: string) => void;
  /** Another action under the button ("Do this next time"). */
  secondaryAction?: ReactNode;
}

/**
 * The authentication code field of every two-factor screen: focused on arrival, with a numeric
 * keyboard on phones and the browser's one-time-code autofill.
 */
export function CodeForm({ pending, error, onSubmit, secondaryAction }: CodeFormProps) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  // The server's verdict on a code stops applying once the person edits the code.
  const [editedSince, setEditedSince] = useState<unknown>(null);
  const form = useForm({
    mode: 'controlled',
    initialValues: { Code: '' },
    validate: {
      Code: (value) => {
        const code = normaliseCode(value);
        if (code === '') return t('twoFactor.codeRequired');
        return CODE.test(code) ? null : t('twoFactor.codeFormat');
      },
    },
    onValuesChange: () => setEditedSince(error),
  });

  const refusedCode = CODE_REFUSALS.find((code) => hasErrorCode(error, code));
  const shownOnField = refusedCode !== undefined && editedSince !== error ? refusedCode : undefined;
  const otherFailure = error !== null && refusedCode === undefined;

  useEffect(() => {
    // Focused on arrival without scrolling: on the onboarding screen the QR code above must stay in view.
    input.current?.focus({ preventScroll: true });
  }, []);

  useEffect(() => {
    // A refused code is selected, so that typing the next one replaces it.
    if (CODE_REFUSALS.some((code) => hasErrorCode(error, code))) input.current?.select();
  }, [error]);

  return (
    <form noValidate onSubmit={form.onSubmit(({ Code }) => onSubmit(normaliseCode(Code)))}>
      <Stack>
        {otherFailure ? <FormError message={renderError(error, t)} /> : null}
        <TextInput
          ref={input}
          label={t('twoFactor.codeLabel')}
          description={t('twoFactor.codeDescription')}
          inputMode="numeric"
          autoComplete="one-time-code"
          required
          withAsterisk={false}
          spellCheck={false}
          {...form.getInputProps('Code')}
          error={form.errors.Code ?? (shownOnField === undefined ? undefined : t(shownOnField))}
        />
        <Button type="submit" fullWidth loading={pending}>
          {t('twoFactor.verify')}
        </Button>
        {secondaryAction}
      </Stack>
    </form>
  );
}
