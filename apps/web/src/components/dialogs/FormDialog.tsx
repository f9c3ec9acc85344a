import type { FormEventHandler, ReactNode } from 'react';
import { Button, Modal, Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { FormError } from '@/components/FormError';
import { renderError } from '@/lib/api/render-error';
import { DialogActions } from './DialogActions';

/** Props of {@link FormDialog}. */
export interface FormDialogProps {
  opened: boolean;
  title: string;
  onClose: () => void;
  /** The form's submit handler, usually `form.onSubmit(save)` of a useZodForm. */
  onSubmit: FormEventHandler<HTMLFormElement>;
  /** Whether the save is on its way: the Save button spins and Cancel waits. */
  pending?: boolean;
  /**
   * A failure of the save that no field took (see `form.setApiError`), shown above the fields;
   * null or undefined for none.
   */
  error?: unknown;
  /** The Save button's text (default "Save"). */
  submitLabel?: string;
  /** The fields; rendered only while open, so each opening starts afresh. */
  children: ReactNode;
}

/** A dialog around a form: title, the fields, a failure that belongs to no field, Cancel and Save. */
export function FormDialog({
  opened,
  title,
  onClose,
  onSubmit,
  pending = false,
  error,
  submitLabel,
  children,
}: FormDialogProps) {
  const { t } = useTranslation();
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={title}
      centered
      closeButtonProps={{ 'aria-label': t('dialog.close') }}
    >
      {opened ? (
        <form noValidate onSubmit={onSubmit}>
          <Stack>
            {error === null || error === undefined ? null : <FormError message={renderError(error, t)} />}
            {children}
            <DialogActions>
              <Button variant="default" onClick={onClose} disabled={pending}>
                {t('dialog.cancel')}
              </Button>
              <Button type="submit" loading={pending}>
                {submitLabel ?? t('dialog.save')}
              </Button>
            </DialogActions>
          </Stack>
        </form>
      ) : null}
    </Modal>
  );
}
