import type { ReactNode } from 'react';
import { Group, Stack, Title } from '@mantine/core';

/** Props of {@link AdminPage}. */
export interface AdminPageProps {
  /** The page's heading, already translated (usually `t(routeTitleKey(route.id))`). */
  title: string;
  /** Search box and actions, to the right of the title (wrapping below it on narrow screens). */
  toolbar?: ReactNode;
  children: ReactNode;
}

/** The frame of every admin screen: heading and toolbar on one line, the body below. */
export function AdminPage({ title, toolbar, children }: AdminPageProps) {
  return (
    <Stack>
      <Group justify="space-between" align="center" wrap="wrap" gap="sm">
        <Title order={1}>{title}</Title>
        {toolbar === undefined ? null : (
          <Group gap="sm" wrap="wrap" role="toolbar" aria-label={title}>
            {toolbar}
          </Group>
        )}
      </Group>
      {children}
    </Stack>
  );
}
