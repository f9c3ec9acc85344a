import { createTheme, type MantineThemeOverride } from '@mantine/core';
import { DEFAULT_ACCENT, type Accent } from '@postern/protocol';
import { iceberg, offsite, rose } from './palettes';

/** The Mantine colour each accent uses: teal and grape are Mantine's own, the others are ours. */
export const ACCENT_COLOR: Record<Accent, string> = {
  teal: 'teal',
  grape: 'grape',
  iceberg: 'iceberg',
  rose: 'rose',
  offsite: 'offsite',
};

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
    colors: { iceberg, rose, offsite },
    autoContrast: choice.highAccessibility,
    luminanceThreshold: choice.highAccessibility ? 0.45 : 0.3,
    defaultRadius: 'md',
    cursorType: 'pointer',
  });
}
