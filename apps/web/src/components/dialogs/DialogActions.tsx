import type { CSSProperties, ReactNode } from 'react';
import { Group } from '@mantine/core';

/**
 * Keeps a dialog's buttons in sight: a Mantine modal is never taller than the viewport and scrolls
 * its content instead, so a long form (the create-user dialog at 900 px) would push Save below the
 * fold. Stuck to the bottom of that scrolling content, over the fields that scroll beneath, the
 * buttons stay on screen however long the form is. The negative margin and matching padding cover the
 * body's bottom padding, so nothing scrolls past underneath them.
 */
export const DIALOG_ACTIONS_STYLE: CSSProperties = {
  position: 'sticky',
  bottom: 'calc(-1 * var(--mb-padding, var(--mantine-spacing-md)))',
  marginBottom: 'calc(-1 * var(--mb-padding, var(--mantine-spacing-md)))',
  paddingTop: 'var(--mantine-spacing-sm)',
  paddingBottom: 'var(--mb-padding, var(--mantine-spacing-md))',
  backgroundColor: 'var(--mantine-color-body)',
  zIndex: 1,
};

/** The row of buttons at the end of a dialog, right-aligned and always visible (see above). */
export function DialogActions({ children }: { children: ReactNode }) {
  return (
    <Group justify="flex-end" style={DIALOG_ACTIONS_STYLE} data-dialog-actions>
      {children}
    </Group>
  );
}
