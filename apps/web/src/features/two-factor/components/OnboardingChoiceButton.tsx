import type { ReactNode } from 'react';
import { Button, Text } from '@mantine/core';

/** Props of {@link OnboardingChoiceButton}. */
export interface OnboardingChoiceButtonProps {
  icon: ReactNode;
  label: string;
  hint: string;
  onClick: () => void;
}

/** One way as a large button: its name, and beneath it, as its description, what it involves. */
export function OnboardingChoiceButton({ icon, label, hint, onClick }: OnboardingChoiceButtonProps) {
  return (
    <Button
      variant="default"
      size="lg"
      h="auto"
      py="sm"
      fullWidth
      justify="flex-start"
      leftSection={icon}
      onClick={onClick}
      styles={{ label: { whiteSpace: 'normal', textAlign: 'start' } }}
    >
      {/* Spans: a button holds phrasing content only. */}
      <Text component="span" fw={600} display="block">
        {label}
      </Text>
      <Text component="span" size="sm" c="dimmed" display="block" mt={2}>
        {hint}
      </Text>
    </Button>
  );
}
