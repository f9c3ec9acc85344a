import { useState } from 'react';
import { Image, useComputedColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useThemeSettings } from '../features/status/api';
import { Logo } from './Logo';

/** Props of {@link BrandLogo}: its largest size; wide logos keep their proportions. */
export interface BrandLogoProps {
  height?: number;
  maxWidth?: number;
}

/**
 * The organisation's logo from the branding settings (GET /api/theme), in the user portal's header
 * and the admin console's: the dark-mode logo on a dark page, the light-mode one on a light page,
 * the other one when only one was uploaded, and Postern's own mark when there is none or it fails
 * to load.
 */
export function BrandLogo({ height = 40, maxWidth = 180 }: BrandLogoProps) {
  const { t } = useTranslation();
  const scheme = useComputedColorScheme('light');
  const { data } = useThemeSettings();
  const dark = data?.LogoURL ?? '';
  const light = data?.LightModeLogoURL ?? '';
  const src = scheme === 'dark' ? dark || light : light || dark;
  const [failed, setFailed] = useState<string | null>(null);

  if (src === '' || failed === src) return <Logo size={height} />;
  return (
    <Image
      src={src}
      alt={t('app.name')}
      h={height}
      w="auto"
      maw={maxWidth}
      fit="contain"
      onError={() => setFailed(src)}
    />
  );
}
