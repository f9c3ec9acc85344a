/**
 * Text colours of the portal's status signals, one for a light and one for a dark page (CSS
 * light-dark(), which follows the colour-scheme Mantine sets). Each keeps a contrast of at least
 * 4.5:1 (WCAG AA) on the page and card backgrounds; Mantine's own shade-6 greens, oranges and reds do
 * not on white. The warning stays recognisably orange in both.
 */
export const STATUS_COLOURS = {
  /** Access runs. */
  access: 'light-dark(#237032, var(--mantine-color-green-3))',
  /** Under 900 seconds left (spec §2, §9). */
  warning: 'light-dark(#c94400, var(--mantine-color-orange-4))',
  /** A failed grant or revoke; the Revoke Access button. */
  danger: 'light-dark(var(--mantine-color-red-9), var(--mantine-color-red-3))',
  /** Nothing to act on (an offline agent). */
  neutral: 'light-dark(var(--mantine-color-gray-7), var(--mantine-color-gray-4))',
} as const;

/** Style of an outlined badge in one of those colours. */
export function outlined(colour: string): { color: string; borderColor: string } {
  return { color: colour, borderColor: colour };
}
