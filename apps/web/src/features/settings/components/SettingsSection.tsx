import { useId, type ReactNode } from 'react';
import { Paper, Stack, Text, Title } from '@mantine/core';

/** Props of {@link SettingsSection}. */
export interface SettingsSectionProps {
  /** The section's heading, already translated; it also names the section for assistive technology. */
  title: string;
  /** One line on what the section is for. */
  description?: ReactNode;
  children: ReactNode;
}

/** One section of the Settings screen: a bordered panel, headed and named, holding its content. */
export function SettingsSection({ title, description, children }: SettingsSectionProps) {
  const headingId = useId();
  return (
    <Paper component="section" aria-labelledby={headingId} withBorder radius="md" p={{ base: 'sm', sm: 'lg' }}>
      <Stack gap="md">
        <Stack gap={4}>
          <Title order={2} size="h3" id={headingId}>
            {title}
          </Title>
          {description === undefined ? null : (
            <Text size="sm" c="dimmed">
              {description}
            </Text>
          )}
        </Stack>
        {children}
      </Stack>
    </Paper>
  );
}
