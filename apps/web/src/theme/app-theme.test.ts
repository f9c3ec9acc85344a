import { DEFAULT_THEME, luminance, mergeMantineTheme } from '@mantine/core';
import { describe, expect, it } from 'vitest';
import {
  createAppTheme,
  cssVariablesResolver,
  readableErrorColour,
  readableFilledColours,
  readableLightVariantColours,
} from './app-theme';
import { iceberg, offsite, rose } from './palettes';

function contrast(a: string, b: string): number {
  const [lighter, darker] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

describe('light variant colours', () => {
  const colors = { ...DEFAULT_THEME.colors, iceberg, rose, offsite };
  const variables = readableLightVariantColours(colors);

  it('gives the light variant text at least 4.5:1 on its background', () => {
    for (const [name, shades] of Object.entries(colors)) {
      const text = variables[`--mantine-color-${name}-light-color`] ?? shades[9];
      expect(contrast(text, shades[1]), name).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('overrides only the colours that fall short, orange among them', () => {
    expect(Object.keys(variables)).toContain('--mantine-color-orange-light-color');
    expect(variables['--mantine-color-grape-light-color']).toBeUndefined();
  });
});

describe('filled colours', () => {
  const white = '#ffffff';
  const resolved = (accent: 'grape' | 'teal', scheme: 'light' | 'dark') => {
    const theme = mergeMantineTheme(DEFAULT_THEME, createAppTheme({ accent, highAccessibility: false }, 'Close'));
    return { theme, variables: readableFilledColours(theme, scheme) };
  };

  it('gives white text at least 4.5:1 on the fill of every colour, in both schemes', () => {
    for (const accent of ['grape', 'teal'] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const { theme, variables } = resolved(accent, scheme);
        const shade = typeof theme.primaryShade === 'number' ? theme.primaryShade : theme.primaryShade[scheme];
        for (const [name, shades] of Object.entries(theme.colors)) {
          const fill = variables[`--mantine-color-${name}-filled`] ?? shades[shade];
          expect(contrast(white, fill), `${name} (${accent}, ${scheme})`).toBeGreaterThanOrEqual(4.5);
        }
      }
    }
  });

  it('leaves the accent itself alone: its shade was chosen to pass', () => {
    expect(resolved('grape', 'light').variables['--mantine-color-grape-filled']).toBeUndefined();
    expect(resolved('grape', 'light').variables['--mantine-color-red-filled']).toBe(DEFAULT_THEME.colors.red[8]);
  });
});

describe('the error colour', () => {
  const theme = mergeMantineTheme(
    DEFAULT_THEME,
    createAppTheme({ accent: 'grape', highAccessibility: false }, 'Close'),
  );
  const shadeOf = (variable: string) => theme.colors.red[Number(/red-(\d)\)$/.exec(variable)?.[1])] ?? '';

  it('has at least 4.5:1 on the light backgrounds, where Mantine’s red 6 has 3.3:1', () => {
    const error = shadeOf(readableErrorColour(theme, 'light'));
    expect(contrast(DEFAULT_THEME.colors.red[6], theme.white)).toBeLessThan(4.5);
    for (const background of [theme.white, theme.colors.gray[0]]) {
      expect(contrast(error, background)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('has at least 4.5:1 on the dark backgrounds, where Mantine’s red 8 has 2.7:1', () => {
    const error = shadeOf(readableErrorColour(theme, 'dark'));
    expect(contrast(DEFAULT_THEME.colors.red[8], theme.colors.dark[7])).toBeLessThan(4.5);
    for (const background of [theme.colors.dark[7], theme.colors.dark[6]]) {
      expect(contrast(error, background)).toBeGreaterThanOrEqual(4.5);
    }
  });

  it('is set for both schemes by the resolver', () => {
    const resolved = cssVariablesResolver(theme);
    expect(resolved.light['--mantine-color-error']).toBe(readableErrorColour(theme, 'light'));
    expect(resolved.dark['--mantine-color-error']).toBe(readableErrorColour(theme, 'dark'));
  });
});
