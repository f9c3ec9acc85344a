import { useTranslation } from 'react-i18next';

/** Postern's mark: an arched gate in a wall, drawn in the current accent colour. */
export function Logo({ size = 40 }: { size?: number }) {
  const { t } = useTranslation();
  return (
    <svg width={size} height={size} viewBox="0 0 32 32" role="img" aria-label={t('app.name')}>
      <rect x="2" y="4" width="28" height="26" rx="3" fill="var(--mantine-primary-color-filled)" />
      <path d="M9 30V16a7 7 0 0 1 14 0v14z" fill="var(--mantine-color-body)" />
      <path d="M16 9.5v20.5" stroke="var(--mantine-primary-color-filled)" strokeWidth="1.5" />
      <circle cx="13.5" cy="21" r="1.2" fill="var(--mantine-primary-color-filled)" />
      <circle cx="18.5" cy="21" r="1.2" fill="var(--mantine-primary-color-filled)" />
    </svg>
  );
}
