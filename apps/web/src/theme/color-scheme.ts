import { localStorageColorSchemeManager, type MantineColorScheme } from '@mantine/core';
import type { Area } from '../lib/area';

/**
 * Each area remembers its own colour mode (public/boot.js reads the same keys before first paint).
 * The admin console is dark unless its admin chooses otherwise; the portal follows the system.
 */
export const COLOR_SCHEME_STORAGE_KEY: Record<Area, string> = {
  user: 'postern.colorScheme.user',
  admin: 'postern.colorScheme.admin',
};

/** The colour mode of each area until its person picks one. */
export const DEFAULT_COLOR_SCHEME: Record<Area, MantineColorScheme> = { user: 'auto', admin: 'dark' };

/** One manager per area, created once so MantineProvider sees a stable object. */
export const COLOR_SCHEME_MANAGER = {
  user: localStorageColorSchemeManager({ key: COLOR_SCHEME_STORAGE_KEY.user }),
  admin: localStorageColorSchemeManager({ key: COLOR_SCHEME_STORAGE_KEY.admin }),
} as const;
