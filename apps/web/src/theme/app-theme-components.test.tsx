import type { ReactNode } from 'react';
import { MantineProvider, Modal, Table } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createAppTheme, DEFAULT_THEME_CHOICE } from './app-theme';

/** The app's theme around `children`, as AreaThemeProvider gives it. */
function renderThemed(children: ReactNode) {
  return render(<MantineProvider theme={createAppTheme(DEFAULT_THEME_CHOICE, 'Close')}>{children}</MantineProvider>);
}

describe('the app theme’s component defaults', () => {
  it('gives a modal a header that is no banner landmark beside the page’s own', async () => {
    renderThemed(
      <>
        <header>Postern</header>
        <Modal opened title="Create agent" onClose={() => undefined}>
          Body
        </Modal>
      </>,
    );
    const dialog = await screen.findByRole('dialog', { name: 'Create agent' });
    expect(screen.getAllByRole('banner')).toHaveLength(1);
    expect(dialog.querySelector('header')).toBeNull();
  });

  it('lets the keyboard reach a table’s sideways-scrolling container', () => {
    const { container } = renderThemed(
      <Table.ScrollContainer minWidth={480}>
        <Table>
          <Table.Tbody>
            <Table.Tr>
              <Table.Td>Recent activity</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>,
    );
    const viewport = container.querySelector('.mantine-ScrollArea-viewport');
    expect(viewport?.getAttribute('tabindex')).toBe('0');
  });
});
