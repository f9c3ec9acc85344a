import { screen, type waitForOptions } from '@testing-library/react';

/*
 * Mantine Menu items are looked up with `hidden: true`: jsdom lays nothing out, so Mantine's
 * hideDetached sees a zero-size target and may keep the open dropdown at display:none, which a
 * browser would show.
 */

/** Waits for the open menu's item `name`. */
export const findMenuItem = (name: string, options?: waitForOptions) =>
  screen.findByRole('menuitem', { name, hidden: true }, options);

/** The open menu's item `name`, there now. */
export const getMenuItem = (name: string) => screen.getByRole('menuitem', { name, hidden: true });

/** The texts of the open menu's items, in order. */
export const menuItemTexts = () => screen.getAllByRole('menuitem', { hidden: true }).map((item) => item.textContent);
