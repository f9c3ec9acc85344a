import { useTranslation } from 'react-i18next';
import type { KnocRecord } from '@postern/protocol';
import { knocDetails } from '../knoc-types';

/** The knoc's Details text: its set names, proxy ACL, vendor group or "Allowlist". */
export function KnocDetails({ knoc }: { knoc: KnocRecord }) {
  const { t } = useTranslation();
  const details = knocDetails(knoc);
  return <>{t(details.key, details.values)}</>;
}
