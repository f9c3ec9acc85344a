import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { BrowserRouter } from 'react-router';
import { AreaThemeProvider } from '../theme/AreaThemeProvider';
import { AppRoutes } from './routes/AppRoutes';
import { useAreaFavicon } from './use-area-favicon';
import { useBundleHashReload } from './use-bundle-hash-reload';
import { useInvalidSessionRedirect } from './use-invalid-session-redirect';

/**
 * Work that follows every navigation, whatever the screen: the build check, the tab icon and the
 * reaction to an ended session. It sits above the area's theme provider, which remounts between
 * areas, so the first bundle hash seen is kept for the whole page load.
 */
function NavigationEffects() {
  useBundleHashReload();
  useAreaFavicon();
  useInvalidSessionRedirect();
  return null;
}

/** The whole app: one QueryClient, the router, the area's theme, the routes. */
export function App({ queryClient }: { queryClient: QueryClient }) {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <NavigationEffects />
        <AreaThemeProvider>
          <AppRoutes />
        </AreaThemeProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
