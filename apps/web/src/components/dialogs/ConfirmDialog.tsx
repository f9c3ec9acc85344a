import type { ReactNode } from 'react';
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import type { TFunction } from 'i18next';
import { DIALOG_ACTIONS_STYLE } from './DialogActions';

/** What {@link openConfirmDialog} asks. Texts are already translated. */
export interface ConfirmDialogOptions {
  title: string;
  message: ReactNode;
  /** The confirm button's text (default "Confirm"). */
  confirmLabel?: string;
  /** A red confirm button, for deletions and other losses. */
  danger?: boolean;
  onConfirm: () => void;
  onCancel?: () => void;
}

/**
 * Asks before doing something (delete, reset, clear), through @mantine/modals: the caller's
 * `onConfirm` runs only after the confirm button, never after Cancel, Escape or a click outside.
 */
export function openConfirmDialog(t: TFunction, options: ConfirmDialogOptions): string {
  const { title, message, confirmLabel, danger = false, onConfirm, onCancel } = options;
  return modals.openConfirmModal({
    title,
    centered: true,
    children: typeof message === 'string' ? <Text size="sm">{message}</Text> : message,
    labels: { confirm: confirmLabel ?? t('dialog.confirm'), cancel: t('dialog.cancel') },
    confirmProps: { color: danger ? 'red' : undefined },
    groupProps: { style: DIALOG_ACTIONS_STYLE },
    closeButtonProps: { 'aria-label': t('dialog.close') },
    onConfirm,
    onCancel,
  });
}
