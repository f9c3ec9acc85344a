import { useState } from 'react';
import { Button, TextInput } from '@mantine/core';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { COPY_CONFIRMATION_MS } from '@postern/protocol';
import i18n from '@/i18n/i18n';
import { ApiError } from '@/lib/api/api-error';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { stubClipboard } from '@/test-support/clipboard';
import { renderUi } from '@/test-support/render-ui';
import { openConfirmDialog } from './ConfirmDialog';
import { ErrorDialog } from './ErrorDialog';
import { FormDialog } from './FormDialog';
import { SecretRevealDialog } from './SecretRevealDialog';

describe('openConfirmDialog', () => {
  function Asker({ onConfirm }: { onConfirm: () => void }) {
    return (
      <Button
        onClick={() =>
          openConfirmDialog(i18n.t, { title: 'Delete agent', message: 'Delete agent "edge"?', danger: true, onConfirm })
        }
      >
        Delete
      </Button>
    );
  }

  it('runs the action only after the confirm button', async () => {
    const onConfirm = vi.fn();
    const { user } = renderUi(<Asker onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete agent' });
    expect(dialog).toHaveTextContent('Delete agent "edge"?');
    await user.click(within(dialog).getByRole('button', { name: 'Confirm' }));
    expect(onConfirm).toHaveBeenCalledOnce();
  });

  it('does nothing on Cancel', async () => {
    const onConfirm = vi.fn();
    const { user } = renderUi(<Asker onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete agent' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(onConfirm).not.toHaveBeenCalled();
  });
});

describe('ErrorDialog', () => {
  it('shows the failure under the title "Error" and closes', async () => {
    const onClose = vi.fn();
    const { user } = renderUi(<ErrorDialog error={new ApiError(409, 'err.agentNameExists')} onClose={onClose} />);
    const dialog = await screen.findByRole('dialog', { name: 'Error' });
    expect(within(dialog).getByRole('alert')).toHaveTextContent('An agent with that name already exists');
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' }).at(-1)!);
    expect(onClose).toHaveBeenCalled();
  });

  it('stays closed without a failure', () => {
    renderUi(<ErrorDialog error={null} onClose={vi.fn()} />);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});

describe('FormDialog', () => {
  const SCHEMA = z.object({ Name: z.string().min(1, 'login.usernameRequired') });

  function NameDialog({ save }: { save: (name: string) => Promise<void> }) {
    const form = useZodForm({ schema: SCHEMA, initialValues: { Name: '' } });
    const [failure, setFailure] = useState<unknown>(null);
    const submit = form.onSubmit(async ({ Name }) => {
      try {
        await save(Name);
      } catch (error) {
        if (!form.setApiError(error)) setFailure(error);
      }
    });
    return (
      <FormDialog opened title="New agent" onClose={vi.fn()} onSubmit={submit} error={failure}>
        <TextInput label="Name" {...form.getInputProps('Name')} />
      </FormDialog>
    );
  }

  it('validates before saving', async () => {
    const save = vi.fn(() => Promise.resolve());
    const { user } = renderUi(<NameDialog save={save} />);
    const dialog = await screen.findByRole('dialog', { name: 'New agent' });
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('You must specify a username')).toBeVisible();
    expect(save).not.toHaveBeenCalled();
  });

  it('shows a refusal naming a field on that field', async () => {
    const save = vi.fn(() => Promise.reject(new ApiError(409, 'err.agentNameExists', 'Name')));
    const { user } = renderUi(<NameDialog save={save} />);
    const dialog = await screen.findByRole('dialog', { name: 'New agent' });
    await user.type(within(dialog).getByLabelText('Name'), 'edge');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('An agent with that name already exists')).toBeVisible();
    expect(within(dialog).getByLabelText('Name')).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows any other refusal above the fields', async () => {
    const save = vi.fn(() => Promise.reject(new ApiError(500, 'err.internalServerError')));
    const { user } = renderUi(<NameDialog save={save} />);
    const dialog = await screen.findByRole('dialog', { name: 'New agent' });
    await user.type(within(dialog).getByLabelText('Name'), 'edge');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Internal server error');
  });
});

describe('SecretRevealDialog', () => {
  afterEach(() => vi.useRealTimers());

  it('shows the secret and says "Copied" for 750 ms after copying it', async () => {
    renderUi(<SecretRevealDialog secret="pk_123" title="API key" onClose={vi.fn()} />);
    const writeText = stubClipboard();
    const dialog = await screen.findByRole('dialog', { name: 'API key' });
    expect(dialog).toHaveTextContent('pk_123');
    expect(dialog).toHaveTextContent('This is shown only once. Copy it now.');

    vi.useFakeTimers();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Copy' }));
    await act(() => Promise.resolve());
    expect(writeText).toHaveBeenCalledWith('pk_123');
    expect(within(dialog).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(COPY_CONFIRMATION_MS - 1);
    });
    expect(within(dialog).getByRole('button', { name: 'Copied' })).toBeInTheDocument();
    act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(within(dialog).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
  });

  it('keeps to the spec’s 750 ms', () => {
    expect(COPY_CONFIRMATION_MS).toBe(750);
  });
});
