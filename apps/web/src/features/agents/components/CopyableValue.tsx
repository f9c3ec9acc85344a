import { ActionIcon, Code, CopyButton, Group, Stack, Text, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { COPY_CONFIRMATION_MS, TOOLTIP_DELAY_MS } from '@postern/protocol';

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
        <CopyButton value={value} timeout={COPY_CONFIRMATION_MS}>
          {({ copied, copy }) => (
            <Tooltip label={copied ? t('dialog.copied') : copyLabel} openDelay={TOOLTIP_DELAY_MS} withArrow>
              <ActionIcon
                variant={copied ? 'light' : 'default'}
                color={copied ? 'teal' : undefined}
                size="lg"
                aria-label={copied ? t('dialog.copied') : copyLabel}
                onClick={copy}
              >
                {copied ? <IconCheck size={16} aria-hidden /> : <IconCopy size={16} aria-hidden />}
              </ActionIcon>
            </Tooltip>
          )}
        </CopyButton>
      </Group>
    </Stack>
  );
}
