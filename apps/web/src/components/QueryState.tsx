import type { ReactNode } from 'react';
import { Alert } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { renderError } from '@/lib/api/render-error';
import { FullPageLoader } from './FullPageLoader';

/** Props of {@link QueryState}: the parts of a TanStack Query result it needs (spread one in). */
export interface QueryStateProps<T> {
  data: T | undefined;
  isError: boolean;
  error: unknown;
  /** The content, given the data once there is some. */
  children: (data: T) => ReactNode;
}

/**
 * The three states of a screen's query: the content once data has come (and still the last data
 * when a later refresh fails), else the failure in an "Error" alert, else the loader.
 */
export function QueryState<T>({ data, isError, error, children }: QueryStateProps<T>) {
  const { t } = useTranslation();
  if (data !== undefined) return <>{children(data)}</>;
  if (isError) {
    return (
      <Alert color="red" title={t('error.title')} role="alert">
        {renderError(error, t)}
      </Alert>
    );
  }
  return <FullPageLoader />;
}
