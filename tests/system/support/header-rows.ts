import type { Page } from 'playwright-core';

/** The few browser globals read inside page.evaluate (the root project compiles without DOM types). */
interface Box {
  top: number;
  bottom: number;
  width: number;
}
interface HeaderElement {
  getBoundingClientRect(): Box;
  querySelectorAll(selector: string): ArrayLike<HeaderElement>;
}

/**
 * How many rows the page's header takes: its greeting, countdown and controls, grouped into rows by
 * where they sit vertically (an item starting below every item of the current row opens a new one).
 */
export function headerRows(page: Page): Promise<number> {
  return page.evaluate(() => {
    const { document } = globalThis as unknown as { document: { querySelector(s: string): HeaderElement | null } };
    const header = document.querySelector('header');
    if (header === null) return 0;
    const boxes = Array.from(header.querySelectorAll('h1, [role="timer"], button, [role="radiogroup"], img, svg'))
      .map((element) => element.getBoundingClientRect())
      .filter((box) => box.width > 0)
      .sort((a, b) => a.top - b.top);
    let rows = 0;
    let rowBottom = Number.NEGATIVE_INFINITY;
    for (const box of boxes) {
      if (box.top >= rowBottom - 1) {
        rows += 1;
        rowBottom = box.bottom;
      } else {
        rowBottom = Math.max(rowBottom, box.bottom);
      }
    }
    return rows;
  });
}
