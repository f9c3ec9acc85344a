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
 * A labelled value in a code block with a copy button beside it. The value never wraps: a command
 * broken in the middle of `--token` reads as two, and what is copied is one line anyway. A value
 * wider than the block scrolls sideways inside it (the block is focusable, so the keyboard can
 * scroll it too) on a 390 px screen as on a wide one.
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
          tabIndex={0}
          aria-labelledby={labelId}
          style={{ flex: 1, minWidth: 0, overflowX: 'auto', whiteSpace: 'pre', overflowWrap: 'normal' }}
        >
          {value}
        </Code>
        <CopyIconButton value={value} label={copyLabel} copiedLabel={t('dialog.copied')} variant="default" size="lg" />
      </Group>
    </Stack>
  );
}
