import { useCallback } from 'react';
import { useLocalStorage } from '@mantine/hooks';

/**
 * What the dashboard remembers in the browser (spec §2): favourites, how often each ACL was used (for
 * the Top section), the card or list view, and whether the timer is hidden. Kept per user name, so two
 * people sharing a browser do not mix their favourites.
 */

/** The dashboard's two layouts. */
export type DashboardView = 'cards' | 'list';

/** localStorage key of one preference of one user. */
export function preferenceKey(userName: string, name: 'favourites' | 'usage' | 'view' | 'timerHidden'): string {
  return `postern.dashboard.${encodeURIComponent(userName)}.${name}`;
}

/** Reads stored JSON, falling back when it is missing or not of the expected shape (an old build, a hand edit). */
function reader<T>(fallback: T, valid: (value: unknown) => value is T) {
  return (raw: string | undefined): T => {
    if (raw === undefined) return fallback;
    try {
      const value = JSON.parse(raw) as unknown;
      return valid(value) ? value : fallback;
    } catch {
      return fallback;
    }
  };
}

const isStringList = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');
const isUsage = (value: unknown): value is Record<string, number> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((count) => typeof count === 'number' && Number.isFinite(count));
const isView = (value: unknown): value is DashboardView => value === 'cards' || value === 'list';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

const NO_FAVOURITES: string[] = [];
const NO_USAGE: Record<string, number> = {};

/** The dashboard's remembered choices for `userName`, read before the first paint. */
export function useDashboardPreferences(userName: string) {
  const common = { getInitialValueInEffect: false, serialize: JSON.stringify } as const;
  const [favourites, setFavourites] = useLocalStorage<string[]>({
    ...common,
    key: preferenceKey(userName, 'favourites'),
    defaultValue: NO_FAVOURITES,
    deserialize: reader(NO_FAVOURITES, isStringList),
  });
  const [usage, setUsage] = useLocalStorage<Record<string, number>>({
    ...common,
    key: preferenceKey(userName, 'usage'),
    defaultValue: NO_USAGE,
    deserialize: reader(NO_USAGE, isUsage),
  });
  const [view, setView] = useLocalStorage<DashboardView>({
    ...common,
    key: preferenceKey(userName, 'view'),
    defaultValue: 'cards',
    deserialize: reader<DashboardView>('cards', isView),
  });
  const [timerHidden, setTimerHidden] = useLocalStorage<boolean>({
    ...common,
    key: preferenceKey(userName, 'timerHidden'),
    defaultValue: false,
    deserialize: reader(false, isBoolean),
  });

  const toggleFavourite = useCallback(
    (aclId: string) =>
      setFavourites((current) =>
        current.includes(aclId) ? current.filter((id) => id !== aclId) : [...current, aclId],
      ),
    [setFavourites],
  );
  const countUse = useCallback(
    (aclId: string) => setUsage((current) => ({ ...current, [aclId]: (current[aclId] ?? 0) + 1 })),
    [setUsage],
  );

  return { favourites, toggleFavourite, usage, countUse, view, setView, timerHidden, setTimerHidden };
}

/** The preferences and their setters, as the dashboard's parts receive them. */
export type DashboardPreferences = ReturnType<typeof useDashboardPreferences>;
