import { ActionIcon, CopyButton, Tooltip } from '@mantine/core';
import { IconCheck, IconCopy } from '@tabler/icons-react';
import { COPY_CONFIRMATION_MS, TOOLTIP_DELAY_MS } from '@postern/protocol';

/** Props of {@link CopyIconButton}. Texts are already translated. */
export interface CopyIconButtonProps {
  value: string;
  /** The button's tooltip and accessible name ("Copy the token of edge-1"). */
  label: string;
  /** What they say for a moment after copying ("Copied"). */
  copiedLabel: string;
  /** `subtle` (grey, in a table row or a field) or `default` (outlined, beside a code block). */
  variant?: 'subtle' | 'default';
  size?: 'md' | 'lg';
  iconSize?: number;
}

/** An icon button that copies `value`, turning into a teal check for the spec's 750 ms. */
export function CopyIconButton({
  value,
  label,
  copiedLabel,
  variant = 'subtle',
  size,
  iconSize = 16,
}: CopyIconButtonProps) {
  return (
    <CopyButton value={value} timeout={COPY_CONFIRMATION_MS}>
      {({ copied, copy }) => (
        <Tooltip label={copied ? copiedLabel : label} openDelay={TOOLTIP_DELAY_MS} withArrow>
          <ActionIcon
            variant={copied ? 'light' : variant}
            color={copied ? 'teal' : variant === 'subtle' ? 'gray' : undefined}
            size={size}
            aria-label={copied ? copiedLabel : label}
            onClick={copy}
          >
            {copied ? <IconCheck size={iconSize} aria-hidden /> : <IconCopy size={iconSize} aria-hidden />}
          </ActionIcon>
        </Tooltip>
      )}
    </CopyButton>
  );
}
