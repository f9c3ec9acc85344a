import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import { RelativeTime } from '@/components/RelativeTime';

/** When the knoc last changed and who changed it ("2 days ago by grace"). */
export function KnocLastModified({ knoc }: { knoc: KnocRecord }) {
  const { t } = useTranslation();
  return (
    <>
      <RelativeTime date={knoc.LastModifiedAt} /> {t('knocsScreen.lastModifiedBy', { name: knoc.LastModifiedBy })}
    </>
  );
}
