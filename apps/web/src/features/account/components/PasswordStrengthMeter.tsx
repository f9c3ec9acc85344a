import { Group, Progress, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { STRENGTH_LEVELS, type StrengthScore } from '../password-strength';
import type { PasswordStrength } from '../use-password-strength';

/** A colour per score, from red to green. */
const COLORS: Record<StrengthScore, string> = { 0: 'red', 1: 'orange', 2: 'yellow', 3: 'lime', 4: 'green' };

/**
 * The new password's strength: a bar and the level's name (spec §4). The bar is a progressbar from
 * 0 to 4 whose value text is the level's name, so screen readers hear "Weak", not "40%".
 */
export function PasswordStrengthMeter({ strength }: { strength: PasswordStrength }) {
  const { t } = useTranslation();
  if (strength === null) return null;
  const loading = strength === 'loading';
  const label = loading ? t('account.strengthChecking') : t(`account.strength.${STRENGTH_LEVELS[strength]}`);

  return (
    <Stack gap={4}>
      <Progress.Root size="sm">
        <Progress.Section
          value={loading ? 0 : (strength + 1) * 20}
          color={loading ? 'gray' : COLORS[strength]}
          withAria={false}
          role="progressbar"
          aria-label={t('account.strengthLabel')}
          aria-valuemin={0}
          aria-valuemax={4}
          aria-valuenow={loading ? undefined : strength}
          aria-valuetext={label}
          aria-busy={loading}
        />
      </Progress.Root>
      <Group justify="space-between" gap="xs">
        <Text size="xs" c="dimmed">
          {t('account.strengthLabel')}
        </Text>
        <Text size="xs" fw={500} aria-live="polite">
          {label}
        </Text>
      </Group>
    </Stack>
  );
}
