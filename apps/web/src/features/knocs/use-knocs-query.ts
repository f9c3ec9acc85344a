import { useEffect } from 'react';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';

/** The query the update screen returns with after a save. */
export const DID_UPDATE_PARAM = 'didUpdate';
/** The query that opens one knoc's detail dialog (links from elsewhere in the console). */
export const VIEW_KNOC_PARAM = 'viewKnocId';

/**
 * Acts on the knocs list's query once, then clears it (history replaced, no reload), so a reload
 * or Back does not repeat it: didUpdate says "Knoc updated successfully"; viewKnocId opens that
 * knoc's detail dialog through `view`.
 */
export function useKnocsQuery(view: (knocId: string) => void) {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const didUpdate = params.has(DID_UPDATE_PARAM);
  const viewKnocId = params.get(VIEW_KNOC_PARAM);

  useEffect(() => {
    if (!didUpdate && viewKnocId === null) return;
    // One id: StrictMode's second run of this effect replaces the notification instead of adding one.
    if (didUpdate)
      notifications.show({ id: 'knoc-updated', color: 'green', message: t('knocsScreen.msg.knocUpdated') });
    if (viewKnocId !== null && viewKnocId !== '') view(viewKnocId);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(DID_UPDATE_PARAM);
        next.delete(VIEW_KNOC_PARAM);
        return next;
      },
      { replace: true },
    );
  }, [didUpdate, viewKnocId, view, setParams, t]);
}
