import { Button, TextInput } from '@mantine/core';
import { screen } from '@testing-library/react';
import { z } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { ApiError } from '@/lib/api/api-error';
import { renderUi } from '@/test-support/render-ui';
import { useZodForm } from './use-zod-form';

const SCHEMA = z.object({
  UserName: z.string().min(1, 'login.usernameRequired'),
  DiscoverIPURL: z.string().startsWith('http', ErrorCodes.urlMustBeHttp),
});

function TestForm({ onSubmit, refusal }: { onSubmit: (values: unknown) => void; refusal?: unknown }) {
  const form = useZodForm({ schema: SCHEMA, initialValues: { UserName: '', DiscoverIPURL: 'ftp://x' } });
  return (
    <form noValidate onSubmit={form.onSubmit(onSubmit)}>
      <TextInput label="User" {...form.getInputProps('UserName')} />
      <TextInput label="URL" {...form.getInputProps('DiscoverIPURL')} />
      <Button type="submit">Save</Button>
      <Button onClick={() => form.setApiError(refusal)}>Refuse</Button>
      <Button onClick={() => form.refuse(refusal)}>Refuse save</Button>
      <Button onClick={form.clearFailure}>Clear</Button>
      <output aria-label="Failure">{form.failure instanceof ApiError ? form.failure.err : 'none'}</output>
    </form>
  );
}

describe('useZodForm', () => {
  it('shows each field its translated schema message and does not submit', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(<TestForm onSubmit={onSubmit} />);
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('You must specify a username')).toBeVisible();
    expect(screen.getByText('URL must be http or https')).toBeVisible();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('submits valid values', async () => {
    const onSubmit = vi.fn();
    const { user } = renderUi(<TestForm onSubmit={onSubmit} />);
    await user.type(screen.getByLabelText('User'), 'ada');
    await user.clear(screen.getByLabelText('URL'));
    await user.type(screen.getByLabelText('URL'), 'https://ip.example');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(onSubmit).toHaveBeenCalledWith({ UserName: 'ada', DiscoverIPURL: 'https://ip.example' }, expect.anything());
  });

  it('shows a server refusal under the field its Extra names', async () => {
    const refusal = new ApiError(400, 'err.badRequest', 'UserName: already taken');
    const { user } = renderUi(<TestForm onSubmit={vi.fn()} refusal={refusal} />);
    await user.click(screen.getByRole('button', { name: 'Refuse' }));
    expect(await screen.findByText('Bad request: already taken')).toBeVisible();
    expect(screen.getByLabelText('User')).toHaveAttribute('aria-invalid', 'true');
  });

  it.each([
    ['under the field its Extra names', new ApiError(400, 'err.badRequest', 'UserName: already taken'), 'none'],
    ['in `failure` when it names no field', new ApiError(500, 'err.internal'), 'err.internal'],
  ])('puts a save’s refusal %s, and clearFailure forgets it', async (_case, refusal, failure) => {
    const { user } = renderUi(<TestForm onSubmit={vi.fn()} refusal={refusal} />);
    await user.click(screen.getByRole('button', { name: 'Refuse save' }));
    expect(screen.getByRole('status', { name: 'Failure' })).toHaveTextContent(failure);
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.getByRole('status', { name: 'Failure' })).toHaveTextContent('none');
  });
});
