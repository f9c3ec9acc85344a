import { within } from '@testing-library/react';

/** The body rows of a table, the header row left out. */
export const bodyRows = (table: HTMLElement): HTMLElement[] => within(table).getAllByRole('row').slice(1);

/** The text of one column of every body row, in order. */
export function columnTexts(table: HTMLElement, index: number): (string | null | undefined)[] {
  return bodyRows(table).map((row) => within(row).getAllByRole('cell')[index]?.textContent);
}
