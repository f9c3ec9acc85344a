import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderUi } from '@/test-support/render-ui';
import { CredentialDialog } from './CredentialDialog';

describe('CredentialDialog', () => {
  it('says why and asks for every secret of the type before going on', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(
      <CredentialDialog type="firepower" fields={['Password']} onSubmit={onSubmit} onCancel={vi.fn()} />,
    );
    expect(
      await screen.findByText('Changing the URI/Hostname requires re-entering sensitive credentials'),
    ).toBeVisible();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('This field is required')).toBeVisible();
    expect(onSubmit).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText(/^Password/), 's3cret');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledWith({ Password: 's3cret' }));
  });

  it('cancels', async () => {
    const onCancel = vi.fn();
    const { user } = renderUi(
      <CredentialDialog type="panos" fields={['ApiKey']} onSubmit={vi.fn()} onCancel={onCancel} />,
    );
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalled();
  });
});
