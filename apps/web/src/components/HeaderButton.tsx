import { createContext, useContext, type ReactNode } from 'react';
import { ActionIcon, Button, Tooltip } from '@mantine/core';

/**
 * Whether the header around a control is the phone layout (PortalHeader provides it): there each
 * labelled button shrinks to its icon, so the header keeps to two rows at 390 px.
 */
export const CompactHeaderContext = createContext(false);

/** Props of {@link HeaderButton}. */
export interface HeaderButtonProps {
  label: string;
  icon: ReactNode;
  onClick: () => void;
  loading?: boolean;
  variant?: 'default' | 'filled';
}

/**
 * A header control: a button with its icon and label, or, in a compact header, the icon alone with
 * the label as its accessible name and tooltip.
 */
export function HeaderButton({ label, icon, onClick, loading, variant = 'default' }: HeaderButtonProps) {
  const compact = useContext(CompactHeaderContext);
  if (compact) {
    return (
      <Tooltip label={label}>
        <ActionIcon variant={variant} size="lg" aria-label={label} loading={loading} onClick={onClick}>
          {icon}
        </ActionIcon>
      </Tooltip>
    );
  }
  return (
    <Button variant={variant} leftSection={icon} loading={loading} onClick={onClick}>
      {label}
    </Button>
  );
}
