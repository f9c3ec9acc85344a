import { Button } from '@mantine/core';
import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderUi } from '@/test-support/render-ui';
import { AdminPage } from './AdminPage';

describe('AdminPage', () => {
  it('shows the title as the page heading, the toolbar and the body', () => {
    renderUi(
      <AdminPage title="Agents" toolbar={<Button>New agent</Button>}>
        <p>body</p>
      </AdminPage>,
    );
    expect(screen.getByRole('heading', { level: 1, name: 'Agents' })).toBeVisible();
    expect(within(screen.getByRole('toolbar')).getByRole('button', { name: 'New agent' })).toBeVisible();
    expect(screen.getByText('body')).toBeVisible();
  });

  it('has no toolbar when given none', () => {
    renderUi(
      <AdminPage title="Settings">
        <p>body</p>
      </AdminPage>,
    );
    expect(screen.queryByRole('toolbar')).not.toBeInTheDocument();
  });
});
