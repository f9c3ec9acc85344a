import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { BackendType } from '@postern/protocol';
import type { TextRef } from '../knoc-types';

/** The knoc types that name a vendor device; the others have their own kind (knocsScreen.types). */
const OWN_KINDS: ReadonlySet<BackendType> = new Set([
  'ipset',
  'nftables',
  'allowlist',
  'haproxy',
  'knocproxy',
  'script',
]);

/** A backend type as admins read it: the vendor's name, or the translated kind (Linux ipset, HAProxy …). */
export function useKnocTypeLabel() {
  const { t } = useTranslation();
  return useCallback(
    (type: BackendType) => t(OWN_KINDS.has(type) ? `knocsScreen.types.${type}` : `backendsScreen.types.${type}`),
    [t],
  );
}

/** Translates a {@link TextRef}, with the vendor's translated name when it names one. */
export function useTextRef() {
  const { t } = useTranslation();
  const typeLabel = useKnocTypeLabel();
  return useCallback(
    (ref: TextRef) =>
      t(ref.key, {
        ...ref.values,
        ...(ref.vendorType === undefined ? {} : { vendor: typeLabel(ref.vendorType) }),
      }),
    [t, typeLabel],
  );
}
