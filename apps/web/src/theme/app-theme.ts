import {
  createTheme,
  darken,
  luminance,
  type CSSVariablesResolver,
  type MantineTheme,
  type MantineThemeOverride,
} from '@mantine/core';
import { DEFAULT_ACCENT, type Accent } from '@postern/protocol';
import { iceberg, offsite, rose } from './palettes';

/** The Mantine colour each accent uses: teal and grape are Mantine's own, the others are ours. */
const ACCENT_COLOR: Record<Accent, string> = {
  teal: 'teal',
  grape: 'grape',
  iceberg: 'iceberg',
  rose: 'rose',
  offsite: 'offsite',
};

/**
 * The shade of each accent that filled controls (and, in light mode, links) use: the lightest one on
 * which white text still has a contrast of at least 4.5:1 (WCAG AA), so a 'Grant Access' button
 * stays readable in every accent. Mantine's default, shade 6 (8 in dark mode), is too light for most.
 */
const ACCENT_SHADE: Record<Accent, { light: 7 | 8 | 9; dark: 8 | 9 }> = {
  teal: { light: 9, dark: 9 },
  grape: { light: 7, dark: 8 },
  iceberg: { light: 8, dark: 8 },
  rose: { light: 7, dark: 8 },
  offsite: { light: 9, dark: 9 },
};

/** WCAG AA's contrast for normal text. */
const MIN_TEXT_CONTRAST = 4.5;
const WHITE = '#ffffff';

function contrast(a: string, b: string): number {
  const [lighter, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/** `colour` darkened in steps of 5 % until it has 4.5:1 against `other` (as it is if it already has). */
function darkenUntilReadable(colour: string, other: string): string {
  let darkened = colour;
  for (let amount = 0.05; contrast(darkened, other) < MIN_TEXT_CONTRAST && amount < 1; amount += 0.05) {
    darkened = darken(colour, amount);
  }
  return darkened;
}

/**
 * In light mode a light variant (a light Badge, Alert or Button) writes shade 9 on shade 1, which is
 * under 4.5:1 for teal, green, lime, yellow and orange (3.6:1 for an orange "expires soon" badge).
 * Those colours get shade 9 darkened just enough; the hue stays, so orange still reads as orange.
 */
export function readableLightVariantColours(colors: MantineTheme['colors']): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, shades] of Object.entries(colors)) {
    const readable = darkenUntilReadable(shades[9], shades[1]);
    if (readable !== shades[9]) variables[`--mantine-color-${name}-light-color`] = readable;
  }
  return variables;
}

/**
 * Filled controls of every colour use the accent's primary shade, chosen so that white text on the
 * accent has 4.5:1; on other colours it may not (white on red 7, the unlicensed banner's "Get a
 * licence", is 3.8:1). Those take the first darker shade that has it, or shade 9 darkened just
 * enough, and hover darker still. With high accessibility mode's automatic contrast a light fill
 * gets dark text instead, so that fill stays as it is.
 */
export function readableFilledColours(theme: MantineTheme, scheme: 'light' | 'dark'): Record<string, string> {
  const primary = typeof theme.primaryShade === 'number' ? theme.primaryShade : theme.primaryShade[scheme];
  const variables: Record<string, string> = {};
  for (const [name, shades] of Object.entries(theme.colors)) {
    if (contrast(WHITE, shades[primary]) >= MIN_TEXT_CONTRAST) continue;
    if (theme.autoContrast && luminance(shades[primary]) > theme.luminanceThreshold) continue;
    const darker = shades.find((colour, index) => index > primary && contrast(WHITE, colour) >= MIN_TEXT_CONTRAST);
    const filled = darker ?? darkenUntilReadable(shades[9], WHITE);
    variables[`--mantine-color-${name}-filled`] = filled;
    variables[`--mantine-color-${name}-filled-hover`] = darken(filled, 0.1);
  }
  return variables;
}

/**
 * The error colour (a field's message and border, a form's error text) readable on the pages'
 * backgrounds: Mantine's red 6 on white is 3.3:1 and its red 8 on dark grey 2.7:1. In light mode the
 * first shade from 6 up, in dark mode the first from 8 down, that has 4.5:1 on every background an
 * error is written on (the body, a card, an input).
 */
export function readableErrorColour(theme: MantineTheme, scheme: 'light' | 'dark'): string {
  const backgrounds =
    scheme === 'light' ? [theme.white, theme.colors.gray[0]] : [theme.colors.dark[7], theme.colors.dark[6]];
  const readable = (colour: string) =>
    backgrounds.every((background) => contrast(colour, background) >= MIN_TEXT_CONTRAST);
  // Red 9 on white and red 0 on dark grey always pass: the last resort of each order.
  const order = scheme === 'light' ? [6, 7, 8, 9] : [8, 7, 6, 5, 4, 3, 2, 1, 0];
  const shade = order.find((index) => readable(theme.colors.red[index] ?? '')) ?? order[order.length - 1];
  return `var(--mantine-color-red-${shade})`;
}

/**
 * Text colours Mantine leaves below 4.5:1: dimmed text (gray 6 on white, dark 2 on dark grey), light
 * variants and fills of some colours (above) and links in dark mode (shade 4, too dark for rose). One
 * step further from the background each.
 */
export const cssVariablesResolver: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': readableErrorColour(theme, 'light'),
    ...readableLightVariantColours(theme.colors),
    ...readableFilledColours(theme, 'light'),
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-anchor': `var(--mantine-color-${theme.primaryColor}-3)`,
    '--mantine-color-error': readableErrorColour(theme, 'dark'),
    ...readableFilledColours(theme, 'dark'),
  },
});

/** Settings the administrator chooses for every page (GET /api/theme). */
export interface ThemeChoice {
  accent: Accent;
  highAccessibility: boolean;
}

/** The look until (or unless) GET /api/theme answers: grape, normal contrast. */
export const DEFAULT_THEME_CHOICE: ThemeChoice = { accent: DEFAULT_ACCENT, highAccessibility: false };

/**
 * The Mantine theme for an accent; high-accessibility mode raises text contrast on coloured fills.
 * `closeLabel` (translated) names the close button of every notification, which has no text.
 */
export function createAppTheme(choice: ThemeChoice, closeLabel: string): MantineThemeOverride {
  return createTheme({
    primaryColor: ACCENT_COLOR[choice.accent],
    primaryShade: ACCENT_SHADE[choice.accent],
    colors: { iceberg, rose, offsite },
    autoContrast: choice.highAccessibility,
    luminanceThreshold: choice.highAccessibility ? 0.45 : 0.3,
    defaultRadius: 'md',
    cursorType: 'pointer',
    components: {
      Notification: { defaultProps: { closeButtonProps: { 'aria-label': closeLabel } } },
      // A modal's header is a <header> by Mantine's default, which outside any sectioning element is
      // a second banner landmark beside the page's own: a plain element it is, the dialog names itself.
      ModalHeader: { defaultProps: { component: 'div' } },
      // Mantine puts a focusable role-less placeholder first in every open menu, which a `menu` may not
      // hold (axe: aria-required-children); without it the menu focuses its first item on opening, as
      // WAI-ARIA's menu button pattern has it.
      Menu: { defaultProps: { withInitialFocusPlaceholder: false } },
      // A table wider than the screen scrolls sideways in its container, which a keyboard must be able
      // to reach to scroll it, also when no cell holds a button or link (axe: scrollable-region-focusable).
      TableScrollContainer: { defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } },
    },
  });
}
