import type { ReactNode } from 'react';
import { ActionIcon, Menu } from '@mantine/core';
import { IconDots } from '@tabler/icons-react';

/** One entry of a {@link RowActionMenu}. */
export interface RowMenuItem {
  /** The entry's text, already translated. */
  label: string;
  icon: ReactNode;
  onClick: () => void;
  /** A red entry below a divider, for deletions and other losses. */
  danger?: boolean;
}

/** Props of {@link RowActionMenu}. */
export interface RowActionMenuProps {
  /** The menu button's accessible name, naming the row ("Actions for grace"), already translated. */
  label: string;
  /** The entries; the danger ones come last, after a divider. Leave out what the row cannot do. */
  items: readonly RowMenuItem[];
  /** An action is on its way for this row: the button spins. */
  loading?: boolean;
}

/** A table row's "…" menu, for rows with more actions than fit as icon buttons. */
export function RowActionMenu({ label, items, loading = false }: RowActionMenuProps) {
  const entry = (item: RowMenuItem) => (
    <Menu.Item
      key={item.label}
      // The error colour, chosen readable in both schemes (Mantine's red 6 has 3.3:1 on white).
      color={item.danger === true ? 'var(--mantine-color-error)' : undefined}
      leftSection={item.icon}
      onClick={item.onClick}
    >
      {item.label}
    </Menu.Item>
  );
  const dangers = items.filter((item) => item.danger === true);
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="subtle" color="gray" aria-label={label} loading={loading}>
          <IconDots size={18} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        {items.filter((item) => item.danger !== true).map(entry)}
        {dangers.length === 0 ? null : <Menu.Divider />}
        {dangers.map(entry)}
      </Menu.Dropdown>
    </Menu>
  );
}
