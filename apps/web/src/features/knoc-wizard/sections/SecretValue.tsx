import { useState } from 'react';
import { ActionIcon, Group, Text } from '@mantine/core';
import { IconEye, IconEyeOff } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** What stands in for a secret until it is shown: the same width whatever the secret's length. */
const MASK = '••••••••';

/**
 * A secret on the review (spec §2 displays them so the admin can check what was typed): masked at
 * first, so a screen shared or photographed does not give it away, and shown on request.
 */
export function SecretValue({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  const action = t(shown ? 'knocWizard.review.hideSecret' : 'knocWizard.review.showSecret', { label });
  return (
    <Group gap="xs" wrap="nowrap">
      <Text component="span" size="sm" ff={shown ? 'monospace' : undefined} style={{ wordBreak: 'break-all' }}>
        {shown ? value : MASK}
      </Text>
      <ActionIcon variant="subtle" size="sm" aria-label={action} aria-pressed={shown} onClick={() => setShown(!shown)}>
        {shown ? <IconEyeOff size={16} aria-hidden /> : <IconEye size={16} aria-hidden />}
      </ActionIcon>
    </Group>
  );
}
