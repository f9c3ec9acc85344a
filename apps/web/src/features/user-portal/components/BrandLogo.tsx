import { useState } from 'react';
import { Image, useComputedColorScheme } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { Logo } from '../../../components/Logo';
import { useThemeSettings } from '../../status/api';

/** The logo's largest size in the page header; wide logos keep their proportions. */
const MAX_HEIGHT = 40;
const MAX_WIDTH = 180;

/**
 * The organisation's logo from the branding settings (GET /api/theme): the dark-mode logo on a dark
 * page, the light-mode one on a light page, the other one when only one was uploaded, and Postern's
 * own mark when there is none or it fails to load.
 */
export function BrandLogo() {
  const { t } = useTranslation();
  const scheme = useComputedColorScheme('light');
  const { data } = useThemeSettings();
  const dark = data?.LogoURL ?? '';
  const light = data?.LightModeLogoURL ?? '';
  const src = scheme === 'dark' ? dark || light : light || dark;
  const [failed, setFailed] = useState<string | null>(null);

  if (src === '' || failed === src) return <Logo size={MAX_HEIGHT} />;
  return (
    <Image
      src={src}
      alt={t('app.name')}
      h={MAX_HEIGHT}
      w="auto"
      maw={MAX_WIDTH}
      fit="contain"
      onError={() => setFailed(src)}
    />
  );
}
