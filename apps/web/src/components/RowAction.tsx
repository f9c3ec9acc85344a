import type { ReactNode } from 'react';
import { ActionIcon, Tooltip, VisuallyHidden } from '@mantine/core';
import { useId } from '@mantine/hooks';
import { TOOLTIP_DELAY_MS } from '@postern/protocol';

/** Props of {@link RowAction}. */
export interface RowActionProps {
  /** What the button does, naming the row ("Delete grace"), already translated. */
  label: string;
  icon: ReactNode;
  onClick: () => void;
  /** Why the action is unavailable, already translated; null when it is available. */
  unavailable?: string | null;
  color?: string;
  /** The action is on its way for this row: the button spins and cannot be pressed again. */
  loading?: boolean;
}

/**
 * One icon button of a table row, its label as tooltip and accessible name. An unavailable action
 * stays visible, focusable and explained (its reason is the tooltip and the button's description)
 * instead of vanishing, so an admin learns why they cannot, say, delete themselves.
 */
export function RowAction({ label, icon, onClick, unavailable = null, color, loading = false }: RowActionProps) {
  const reasonId = useId();
  const disabled = unavailable !== null;
  return (
    <Tooltip label={unavailable ?? label} openDelay={TOOLTIP_DELAY_MS} withArrow>
      <ActionIcon
        variant="subtle"
        color={disabled ? 'gray' : color}
        aria-label={label}
        aria-disabled={disabled || undefined}
        aria-describedby={disabled ? reasonId : undefined}
        data-disabled={disabled || undefined}
        loading={loading}
        onClick={disabled ? undefined : onClick}
      >
        {icon}
        {disabled ? <VisuallyHidden id={reasonId}>{unavailable}</VisuallyHidden> : null}
      </ActionIcon>
    </Tooltip>
  );
}
