import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { BackendType } from '@postern/protocol';
import { VENDOR_NAMES } from '../knoc-types';

/** A backend type as admins read it: the vendor's name, or the translated kind (Linux ipset, HAProxy …). */
export function useKnocTypeLabel() {
  const { t } = useTranslation();
  return useCallback((type: BackendType) => VENDOR_NAMES[type] ?? t(`knocsScreen.types.${type}`), [t]);
}
