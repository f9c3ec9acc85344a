import { useEffect } from 'react';
import { useLocation } from 'react-router';
import { areaOf, FAVICON } from '../lib/area';

/** Shows the admin tab icon anywhere under /admin and the portal's icon elsewhere. */
export function useAreaFavicon(): void {
  const area = areaOf(useLocation().pathname);
  useEffect(() => {
    let link = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
    if (link === null) {
      link = document.createElement('link');
      link.rel = 'icon';
      link.type = 'image/svg+xml';
      document.head.append(link);
    }
    link.href = FAVICON[area];
  }, [area]);
}
