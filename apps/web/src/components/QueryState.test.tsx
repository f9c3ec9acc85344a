import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api/api-error';
import { renderUi } from '@/test-support/render-ui';
import { QueryState } from './QueryState';

const content = (data: string) => <p>Data: {data}</p>;

describe('QueryState', () => {
  it('shows the loader while there is neither data nor a failure', () => {
    renderUi(
      <QueryState data={undefined} isError={false} error={null}>
        {content}
      </QueryState>,
    );
    expect(screen.getByRole('status', { name: 'Loading…' })).toBeInTheDocument();
  });

  it('shows a failure as an "Error" alert with the rendered error', () => {
    const error = new ApiError(404, 'err.notFound');
    renderUi(
      <QueryState data={undefined} isError error={error}>
        {content}
      </QueryState>,
    );
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('Error');
    expect(alert).toHaveTextContent('Not found');
  });

  it('shows the content once there is data', () => {
    renderUi(
      <QueryState data="ready" isError={false} error={null}>
        {content}
      </QueryState>,
    );
    expect(screen.getByText('Data: ready')).toBeVisible();
  });

  it('keeps showing the last data when a refresh fails', () => {
    renderUi(
      <QueryState data="old" isError error={new Error('offline')}>
        {content}
      </QueryState>,
    );
    expect(screen.getByText('Data: old')).toBeVisible();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
