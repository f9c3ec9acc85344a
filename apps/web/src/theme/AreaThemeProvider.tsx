import { useMemo, type ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { useLocation } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useThemeSettings } from '../features/status/api';
import { areaOf } from '../lib/area';
import { createAppTheme, cssVariablesResolver, DEFAULT_THEME_CHOICE } from './app-theme';
import { COLOR_SCHEME_MANAGER, DEFAULT_COLOR_SCHEME } from './color-scheme';

/**
 * Mantine for the current area, in the administrator's accent (GET /api/theme). Mantine reads the
 * colour-scheme manager only when it mounts, so the provider is keyed by area: crossing between the
 * portal and the console remounts it with that area's own remembered colour mode.
 */
export function AreaThemeProvider({ children }: { children: ReactNode }) {
  const area = areaOf(useLocation().pathname);
  const { data } = useThemeSettings();
  const accent = data?.Accent ?? DEFAULT_THEME_CHOICE.accent;
  const highAccessibility = data?.HighAccessibility ?? DEFAULT_THEME_CHOICE.highAccessibility;
  const closeLabel = useTranslation().t('dialog.close');
  const theme = useMemo(
    () => createAppTheme({ accent, highAccessibility }, closeLabel),
    [accent, highAccessibility, closeLabel],
  );

  return (
    <MantineProvider
      key={area}
      theme={theme}
      cssVariablesResolver={cssVariablesResolver}
      colorSchemeManager={COLOR_SCHEME_MANAGER[area]}
      defaultColorScheme={DEFAULT_COLOR_SCHEME[area]}
    >
      <ModalsProvider>
        <Notifications />
        {children}
      </ModalsProvider>
    </MantineProvider>
  );
}
