import type { ReactNode } from 'react';
import { Text } from '@mantine/core';

/** The error of a config or a list as a whole (no single field to show it on); nothing when none. */
export function ConfigError({ error }: { error: ReactNode }) {
  if (error === undefined || error === null || error === false) return null;
  return (
    <Text c="red" size="sm" role="alert">
      {error}
    </Text>
  );
}
