import type { ReactElement, ReactNode } from 'react';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import { createTestQueryClient, createTestUser } from './test-clients';

/**
 * Renders one component with the app's providers (Mantine, modals, a fresh QueryClient) but no
 * router or session: for tests of shared components outside any page.
 */
export function renderUi(ui: ReactElement) {
  const queryClient = createTestQueryClient();
  const user = createTestUser();
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <MantineProvider>
        <ModalsProvider>{children}</ModalsProvider>
      </MantineProvider>
    </QueryClientProvider>
  );
  return { ...render(ui, { wrapper }), user, queryClient };
}
