import { Code, Group, Stack, Text } from '@mantine/core';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { CopyIconButton } from '@/components/CopyIconButton';

/** Props of {@link CopyableValue}. */
export interface CopyableValueProps {
  /** What the value is ("Install command"), shown above it and naming the code block. */
  label: string;
  value: string;
  /** The copy button's accessible name ("Copy the token"). */
  copyLabel: string;
}

/**
 * A labelled value in a code block with a copy button beside it. The value wraps anywhere, so a
 * 43-character token or a long command stays readable on a 390 px screen.
 */
export function CopyableValue({ label, value, copyLabel }: CopyableValueProps) {
  const { t } = useTranslation();
  const labelId = useId();
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500} id={labelId}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap" align="flex-start">
        <Code
          block
          aria-labelledby={labelId}
          style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere', whiteSpace: 'pre-wrap' }}
        >
          {value}
        </Code>
        <CopyIconButton value={value} label={copyLabel} copiedLabel={t('dialog.copied')} variant="default" size="lg" />
      </Group>
    </Stack>
  );
}
