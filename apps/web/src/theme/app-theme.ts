import { createTheme, type CSSVariablesResolver, type MantineThemeOverride } from '@mantine/core';
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

/**
 * Text colours Mantine leaves below 4.5:1: dimmed text (gray 6 on white, dark 2 on dark grey) and
 * links in dark mode (shade 4, too dark for rose). One step further from the background each.
 */
export const cssVariablesResolver: CSSVariablesResolver = (theme) => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-anchor': `var(--mantine-color-${theme.primaryColor}-3)`,
  },
});

/** Settings the administrator chooses for every page (GET /api/theme). */
export interface ThemeChoice {
  accent: Accent;
  highAccessibility: boolean;
}

/** The look until (or unless) GET /api/theme answers: grape, normal contrast. */
export const DEFAULT_THEME_CHOICE: ThemeChoice = { accent: DEFAULT_ACCENT, highAccessibility: false };

/** The Mantine theme for an accent; high-accessibility mode raises text contrast on coloured fills. */
export function createAppTheme(choice: ThemeChoice): MantineThemeOverride {
  return createTheme({
    primaryColor: ACCENT_COLOR[choice.accent],
    primaryShade: ACCENT_SHADE[choice.accent],
    colors: { iceberg, rose, offsite },
    autoContrast: choice.highAccessibility,
    luminanceThreshold: choice.highAccessibility ? 0.45 : 0.3,
    defaultRadius: 'md',
    cursorType: 'pointer',
  });
}
